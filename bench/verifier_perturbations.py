"""Perturbation bench for the support test (README "How to build verifier perturbations").

Sentences of real paragraphs (SQuAD 2.0 "Normans" and HaluEval knowledge) are copied
with one change each — a negation after the first auxiliary, a changed figure, a
changed year, a name swapped for another name of the same paragraph, the subject and
object traded round a verb (roles), one noun swapped for a WordNet co-hyponym the
paragraph lacks (substitute), a preposition swapped for its opposite (preposition),
what restricts the sentence cut off (qualifier: the words from "only", "unless",
"except", "if", "when"… on, or an opening "If/When …," clause) —
and with harmless changes (whitespace, quote style, case). Each copy is checked
against its own paragraph. Changed copies must not come out ``supported`` (target
>= 97% for each kind, issue 16); the untouched and harmless ones must (>= 99.5%).

Then over-claiming on general labelled pairs (negated SNLI, WiCE, HealthVer): the share
of non-entailed pairs judged ``supported`` (target <= 5%).

    python bench/verifier_perturbations.py [--data ../shared/data] [--show 5] [--reader trained|lexical]

``--reader trained`` (the default) checks each copy the way the guard does: the lexical
test, then the shipped support model's judgement merged by ``judges.base.combine``
(``readers_support.product_outcome``); ``--reader lexical`` is the lexical test alone.
The over-claiming figures on labelled pairs are the lexical test's either way
(``bench/readers_support.py`` measures them with the model).

The data is read in place and never copied into the repository.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from tether.config import Settings
from tether.evaluate.verifier import evaluate_pairs
from tether.evaluate.verifier_report import render_text
from tether.verify import lexicon
from tether.text.sentences import sentence_ranges
from tether.text.terms import STOPWORDS, stem
from tether.verify import check, extract_figures

CHANGED = ("negation", "figure", "year", "name", "roles", "substitute", "preposition",
           "qualifier")
OUTCOMES = ("supported", "contradicted", "mentioned", "unsupported")
HARMLESS = ("untouched", "whitespace", "quote", "case")
_AUX = re.compile(
    r"\b(is|are|was|were|has|have|had|will|would|can|could|may|might|must|shall|should|"
    r"does|do|did)\b(?! not\b|n't)",
    re.I,
)
_NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?: [A-Z][a-z]+)*")
_NOT_NAMES = frozenset(w.capitalize() for w in STOPWORDS)
_NUMBER_WORDS = "two three four five six seven eight nine ten eleven twelve".split()


def default_data() -> Path:
    env = os.environ.get("TETHER_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def paragraphs(data: Path) -> Iterator[tuple[str, str]]:
    """(source, paragraph) pairs."""
    squad = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    for article in squad["data"]:
        for para in article["paragraphs"]:
            yield "squad", para["context"]
    with (data / "halueval-qa-dev.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield "halueval", json.loads(line)["knowledge"]


def role_paragraphs(data: Path) -> Iterator[tuple[str, str]]:
    """More real text for the role reversals, which need a plain subject-verb-object
    clause that encyclopaedic paragraphs seldom have: SICK's premises (written from
    image captions), WiCE's and HealthVer's evidence."""
    seen: set[str] = set()
    with (data / "sick_train_trial.txt").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            text = row["sentence_A"].strip()
            if text not in seen:
                seen.add(text)
                yield "other", text
    with (data / "wice_claim_dev.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield "other", " ".join(json.loads(line)["evidence"])
    with (data / "healthver_dev.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["evidence"] not in seen:
                seen.add(row["evidence"])
                yield "other", row["evidence"]


def negate(s: str) -> str | None:
    m = _AUX.search(s)
    if m is None:
        return None
    return s[: m.end()] + " not" + s[m.end() :]


def change_figure(s: str, rng: random.Random) -> str | None:
    for f in extract_figures(s):
        if f.kind == "year" or f.value is None:
            continue
        digits = re.search(r"\d+", f.text)
        if digits is None:
            word = f.text.lower()
            if word in _NUMBER_WORDS:
                new = _NUMBER_WORDS[(_NUMBER_WORDS.index(word) + 1) % len(_NUMBER_WORDS)]
                return s[: f.start] + new + s[f.end :]
            continue
        d = digits.group()
        how = rng.choice(("bump", "append", "prepend"))
        bumped = d[:-1] + str((int(d[-1]) + 1) % 10)
        new = {"bump": bumped, "append": d + "1", "prepend": "1" + d}[how]
        a = f.start + digits.start()
        return s[:a] + new + s[a + len(d) :]
    return None


def change_year(s: str, rng: random.Random) -> str | None:
    for f in extract_figures(s):
        if f.kind == "year" and f.text[:4].isdigit():
            year = int(f.text[:4]) + rng.choice((-3, -2, -1, 1, 2, 3))
            return s[: f.start] + str(year) + s[f.start + 4 :]
    return None


def swap_name(s: str, paragraph: str, rng: random.Random) -> str | None:
    mine = [m for m in _NAME.finditer(s) if m.group().split()[0] not in _NOT_NAMES]
    if not mine:
        return None
    target = mine[0]
    # A swap must change the name: "Byzantines" for "Byzantine" changes nothing.
    words = {stem(w.lower()) for w in re.findall(r"\w+", s)}
    others = sorted(
        {
            m.group()
            for m in _NAME.finditer(paragraph)
            if m.group().split()[0] not in _NOT_NAMES
            and not {stem(w.lower()) for w in re.findall(r"\w+", m.group())} & words
        }
    )
    if not others:
        return None
    return s[: target.start()] + rng.choice(others) + s[target.end() :]


# "X <verb>ed Y": a noun phrase (a determiner and up to three words, or a name of up to
# three capitalised words), a verb in the past or third person, another noun phrase.
# Built from the surface alone (no tagger of the verifier's), so the verifier's reading
# is tested, not reused.
_NP = (
    r"(?:(?:the|a|an|his|her|their|its) (?:[A-Za-z][a-z-]+ ){0,2}[a-z][a-z-]+"
    r"|[A-Z][a-z]+(?: [A-Z][a-z]+){0,2})"
)
_ROLES = re.compile(
    r"(?:^|(?<=, )|(?<=\band )|(?<=\bthat )|(?<=\bwhich )|(?<=\bwho ))"
    r"(?P<a>" + _NP + r") (?P<v>(?:(?:is|are|was|were|has|have|had) )?[a-z]{2,}) (?P<b>" + _NP + r")"
    r"(?=[,.;:]| (?:in|on|at|for|with|from|to|by|during|after|before|and|as|until)\b|$)"
)
# Forms of "be" join two names of one thing ("a staff writer has been David Denby"),
# which read the same either way round: not a role reversal.
_NOT_VERBS = frozenset(
    "was is are were be been being does did done his its this as us thus always perhaps".split()
)


_PREPOSITIONS = {
    "in": "outside", "into": "out of", "on": "off", "onto": "off", "to": "from", "from": "to",
    "under": "over", "over": "under", "above": "below", "below": "above", "before": "after",
    "after": "before", "with": "without", "without": "with", "inside": "outside",
    "toward": "away from", "towards": "away from", "up": "down", "down": "up",
}
_PREP = re.compile(r"(?<=[a-z] )(" + "|".join(_PREPOSITIONS) + r")(?= [a-z])")
_WORD = re.compile(r"(?<=[a-z] )[a-z]{4,}\b")


def reverse_roles(s: str) -> str | None:
    """Trade the noun phrases around the first verb between two of them ("the Normans
    conquered England" -> "England conquered the Normans"); the verb must be one
    WordNet knows, and the two phrases must not share a word."""
    for m in _ROLES.finditer(s):
        verb = m["v"]
        if not _verb_form(verb.split()[-1], aux=" " in verb):
            continue
        if any(w.lower() in STOPWORDS and w[0].isupper() for w in f"{m['a']} {m['b']}".split()):
            continue  # "But Swift", "There": a capitalised function word is no name
        a_words = {stem(w.lower()) for w in m["a"].split()} - STOPWORDS
        b_words = {stem(w.lower()) for w in m["b"].split()} - STOPWORDS
        if a_words & b_words or not a_words or not b_words:
            continue
        a, b = m["a"], m["b"]
        if m.start() == 0:  # keep the capital where the sentence starts
            if a.split()[0].lower() in _DETS:
                a = a[:1].lower() + a[1:]
            b = b[:1].upper() + b[1:]
        return s[: m.start()] + f"{b} {verb} {a}" + s[m.end() :]
    return None


_DETS = frozenset("the a an his her their its".split())


def _verb_form(word: str, *, aux: bool) -> bool:
    """A finite or participle form WordNet knows as a verb: "-ed", "-s" (or "-ing"
    after an auxiliary), or an irregular form from its exception list ("led")."""
    if word in _NOT_VERBS or not lexicon.available() or not lexicon.lemmas(word, "v"):
        return False
    if aux:
        return word.endswith(("ing", "ed")) or word in lexicon.verb_forms()
    return word.endswith(("ed", "es", "s")) or word in lexicon.verb_forms()


def change_preposition(s: str, rng: random.Random) -> str | None:
    found = list(_PREP.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    return s[: m.start()] + _PREPOSITIONS[m.group()] + s[m.end() :]


def co_hyponym(word: str) -> str | None:
    """A sister of the first noun sense of ``word`` in WordNet (man -> woman): a word
    under the same hypernym, one word long, sharing no stem with ``word``."""
    senses = lexicon._synsets(word, 1).get("n")
    if not senses:
        return None
    for parent in lexicon._pointed(senses[0], lexicon._UP):
        for sister in lexicon._pointed(parent, ("~", "~i")):
            if sister == senses[0]:
                continue
            for lemma in sorted(lexicon._record(sister)[0]):
                if "_" not in lemma and lemma.isalpha() and stem(lemma) != stem(word):
                    return lemma
    return None


def substitute_word(s: str, paragraph: str, rng: random.Random) -> str | None:
    """One content word (a noun WordNet knows) for a co-hyponym the paragraph lacks."""
    if not lexicon.available():
        return None
    words = {stem(w.lower()) for w in re.findall(r"\w+", paragraph)}
    found = [m for m in _WORD.finditer(s) if m.group() not in STOPWORDS]
    rng.shuffle(found)
    for m in found:
        other = co_hyponym(m.group())
        if other is not None and stem(other) not in words:
            return s[: m.start()] + other + s[m.end() :]
    return None


_RESTRICTION = re.compile(r"\s+(?:only|solely|exclusively|except|unless|if|when|whenever|"
                          r"provided|until)\b", re.I)
_OPENING_CONDITION = re.compile(r"^(?:If|When|Whenever|Unless|Once|Provided)\b[^,]{3,120},\s+")


def drop_qualifier(s: str) -> str | None:
    """``s`` without what restricts it: cut before its first restricting word (keeping
    at least four words), or without its opening condition clause."""
    opening = _OPENING_CONDITION.match(s)
    if opening and len(s[opening.end():].split()) >= 3:
        return s[opening.end():]
    cut = _RESTRICTION.search(s)
    if cut and len(s[: cut.start()].split()) >= 4:
        return s[: cut.start()].rstrip(" ,;:") + "."
    return None


def respace(s: str, rng: random.Random) -> str:
    parts = s.split(" ")
    glue = [rng.choice((" ", "  ", "\n", "\t", " \u00a0")) for _ in parts[1:]]
    out = parts[0] + "".join(g + p for g, p in zip(glue, parts[1:]))
    return rng.choice(("", " ", "\n")) + out + rng.choice(("", " ", "\n"))


def requote(s: str) -> str | None:
    if not re.search("['\"\u2018\u2019\u201c\u201d]", s):
        return None
    if re.search("['\"]", s):
        out, opened = [], False
        for ch in s:
            if ch == '"':
                out.append("\u201d" if opened else "\u201c")
                opened = not opened
            else:
                out.append("\u2019" if ch == "'" else ch)
        return "".join(out)
    return s.translate(str.maketrans("\u2018\u2019\u201c\u201d", "''\"\""))


def copies(
    sentence: str, paragraph: str, rng: random.Random, n: int
) -> Iterator[tuple[str, str | None]]:
    yield "untouched", sentence
    yield "whitespace", respace(sentence, rng)
    yield "quote", requote(sentence)
    yield "case", sentence.lower() if n % 2 == 0 else sentence.upper()
    yield "negation", negate(sentence)
    yield "figure", change_figure(sentence, rng)
    yield "year", change_year(sentence, rng)
    yield "name", swap_name(sentence, paragraph, rng)
    yield "roles", reverse_roles(sentence)
    yield "substitute", substitute_word(sentence, paragraph, rng)
    yield "preposition", change_preposition(sentence, rng)
    yield "qualifier", drop_qualifier(sentence)


class _Outcome:
    """What ``check`` returns, as far as this bench reads it."""

    def __init__(self, outcome: str, reasons: tuple[str, ...]) -> None:
        self.outcome, self.reasons = outcome, reasons


def _checker(settings: Settings, judge):
    """check(text, paragraph) -> outcome and reasons: lexical alone, or the guard's path."""
    if judge is None:
        return lambda text, para: check(text, para, settings=settings)
    from readers_support import product_outcome

    def both(text: str, para: str) -> _Outcome:
        return _Outcome(product_outcome(text, para, judge), check(text, para, settings=settings).reasons)

    return both


def run_perturbations(
    data: Path, settings: Settings, show: int, seed: int, judge=None
) -> dict[str, dict[str, int]]:
    rng = random.Random(seed)
    checker = _checker(settings, judge)
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    by_source: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    failures: dict[str, list[str]] = defaultdict(list)
    n = 0
    for source, para in paragraphs(data):
        for a, b in sentence_ranges(para):
            sentence = para[a:b]
            if len(sentence.split()) < 4:
                continue
            n += 1
            for kind, text in copies(sentence, para, rng, n):
                if text is None:
                    continue
                r = checker(text, para)
                stats[kind][r.outcome] += 1
                by_source[(source, kind)][r.outcome] += 1
                bad = (r.outcome == "supported") == (kind in CHANGED)
                if bad and len(failures[kind]) < show:
                    failures[kind].append(f"{text!r}\n      -> {r.outcome} {r.reasons}")
    extra = 0
    for source, para in role_paragraphs(data):
        for a, b in sentence_ranges(para):
            sentence = para[a:b]
            text = reverse_roles(sentence)
            if text is None or len(sentence.split()) < 4:
                continue
            extra += 1
            for kind, t in (("untouched", sentence), ("roles", text)):
                r = checker(t, para)
                stats[kind][r.outcome] += 1
                by_source[(source, kind)][r.outcome] += 1
                bad = (r.outcome == "supported") == (kind in CHANGED)
                if bad and len(failures[kind]) < show:
                    failures[kind].append(f"{t!r}\n      -> {r.outcome} {r.reasons}")
    print(f"perturbations: {n} sentences from {data}, and {extra} more with a role reversal"
          " (SICK premises, WiCE and HealthVer evidence: 'other')")  # fmt: skip
    head = (f"{'kind':<12}{'n':>6}  {'target':<22}{'result':>8}  {'SQuAD':>7} {'HaluEval':>8}"
            f" {'other':>7}")  # fmt: skip
    print(head + "   outcomes")
    for kind in HARMLESS + CHANGED:
        c = stats[kind]
        total = sum(c.values())
        target = ">= 97% not supported" if kind in CHANGED else ">= 99.5% supported"
        parts = [_rate(kind, by_source[(src, kind)]) for src in ("squad", "halueval", "other")]
        dist = ", ".join(f"{o} {c[o]}" for o in OUTCOMES if c[o])
        rates = f"{_rate(kind, c):>8}  {parts[0]:>7} {parts[1]:>8} {parts[2]:>7}"
        print(f"{kind:<12}{total:>6}  {target:<22}{rates}   {dist}")
    for kind, items in failures.items():
        if not items:
            continue
        print(f"\n  misjudged {kind} copies:")
        for item in items:
            print("    " + item)
    return {k: dict(v) for k, v in stats.items()}


def _rate(kind: str, c: Counter[str]) -> str:
    total = sum(c.values())
    if not total:
        return "n/a"
    good = total - c["supported"] if kind in CHANGED else c["supported"]
    return f"{100 * good / total:.2f}%"


def snli_pairs(data: Path) -> Iterator[tuple[str, str, str]]:
    with (data / "negnli_hossain2020_SNLI.txt").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            yield row["Text"], row["Hypothesis"], row["gold_label"]


def wice_pairs(data: Path) -> Iterator[tuple[str, str, str]]:
    with (data / "wice_claim_dev.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                yield " ".join(obj["evidence"]), obj["claim"], obj["label"]


def healthver_pairs(data: Path) -> Iterator[tuple[str, str, str]]:
    with (data / "healthver_dev.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            yield row["evidence"], row["claim"], row["label"]


def run_pairs(data: Path, settings: Settings) -> None:
    sets = (("negated SNLI", snli_pairs), ("WiCE", wice_pairs), ("HealthVer", healthver_pairs))
    for name, loader in sets:
        t = time.perf_counter()
        result = evaluate_pairs(loader(data), settings=settings)
        took = time.perf_counter() - t
        print()
        print(render_text(result, title=f"{name} ({took:.1f} s)"), end="")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--show", type=int, default=5, help="misjudged copies to print per kind")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--skip-pairs", action="store_true")
    ap.add_argument("--reader", choices=("trained", "lexical"), default="trained",
                    help="trained: lexical test plus the shipped support model, as the guard does")
    args = ap.parse_args(argv)
    if not (args.data / "README.md").is_file():
        print(f"data not found at {args.data} (set --data or TETHER_DATA)", file=sys.stderr)
        return 2
    settings = Settings(reader="lexical")
    judge = None
    if args.reader == "trained":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from tether.judges.trained import TrainedSupportJudge

        judge = TrainedSupportJudge()
    print(f"reader: {args.reader}" + (f" ({judge.checker})" if judge else ""))
    run_perturbations(args.data, settings, args.show, args.seed, judge)
    if not args.skip_pairs:
        run_pairs(args.data, settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

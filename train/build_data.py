#!/usr/bin/env python3
"""Build the training pairs of Tether's two reading models from ../shared/data/train.

    python train/build_data.py --data ../shared/data/train --out train/out

Writes ``answerability.json.xz`` and ``support.json.xz``: ``{"texts": [...], "pairs":
[[first text's index, second text's index, label, split, source], ...]}`` with split
one of train / cal / test.

Held out by article or by source, never by a random cut of one paragraph's pairs:
SQuAD 2.0 articles in ``TEST_ARTICLES`` are the test split of both models (their
paragraphs also give the support model's held-out synthetic pairs), those in
``CAL_ARTICLES`` the calibration split; SNLI test, RTE dev and a hash of MNLI's pair id
and of Climate-FEVER's claim id hold out the rest. Seeded: the same files give the
same pairs.

The windows are the shape the product scores at run time (``tether.readers.windows``):
answerability reads (question, "target sentence [SEP] title. previous sentence next
sentence"); support reads (premise sentences, claim).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import lzma
import random
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from tether.readers.windows import answer_window  # noqa: E402
from tether.text.sentences import split_sentences  # noqa: E402

SEED = 20261204
TEST_ARTICLES = {"Normans", "Steam_engine", "Pharmacy", "Geology", "Packet_switching"}
CAL_ARTICLES = {"Construction", "Private_school", "Civil_disobedience"}


def _split_of(title: str) -> str:
    return "test" if title in TEST_ARTICLES else "cal" if title in CAL_ARTICLES else "train"


def _hash_split(key: str, test_share: float = 0.1) -> str:
    h = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if h < test_share else "train"


def _jsonl_gz(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def _words(s: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 2}


# ---------------------------------------------------------------- answerability


def _paragraph_pairs(title: str, context: str, qas: list[dict], rng: random.Random,
                     split: str, src: str) -> Iterator[dict]:
    """Each question against the sentences of its paragraph: the sentence holding an
    answer is positive, sentences holding none negative; a sentence whose neighbour
    holds the answer is left out (the window shows it, so either label would lie)."""
    sents = split_sentences(context)
    if not sents:
        return
    low = [_norm(s) for s in sents]
    for qa in qas:
        answers = [_norm(a) for a in qa.get("answers", []) if a.strip()]
        impossible = qa.get("is_impossible", False) or not answers
        holds = [(not impossible) and any(a in s for a in answers) for s in low]
        if not impossible and not any(holds):
            continue  # the answer crosses a sentence boundary
        negatives = []
        for i, s in enumerate(sents):
            window = answer_window(s, title, sents[i - 1] if i else "",
                                   sents[i + 1] if i + 1 < len(sents) else "")
            if holds[i]:
                yield {"a": qa["question"], "b": window, "label": 1, "split": split, "src": src}
            elif (i and holds[i - 1]) or (i + 1 < len(sents) and holds[i + 1]):
                continue
            else:
                negatives.append(window)
        # Unanswerable questions were written against this very paragraph: all its
        # sentences are traps worth keeping; otherwise a few per question.
        keep = negatives if impossible else rng.sample(negatives, min(2, len(negatives)))
        for window in keep:
            yield {"a": qa["question"], "b": window, "label": 0, "split": split, "src": src}


def _renamed_question(question: str, names: list[str], rng: random.Random) -> str | None:
    """The question about another named thing: its first capitalised name (not the
    opening word) replaced by a name from another article."""
    found = [m for m in re.finditer(r"\b[A-Z][a-zA-Z]{2,}(?: [A-Z][a-zA-Z]+)*", question) if m.start() > 0]
    if not found or not names:
        return None
    m = rng.choice(found)
    other = rng.choice(names)
    if other.lower() == m.group().lower():
        return None
    return question[: m.start()] + other + question[m.end():]


def build_answerability(data: Path, rng: random.Random) -> list[dict]:
    out: list[dict] = []
    for para in _jsonl_gz(data / "squad20-dev-29-articles.jsonl.gz"):
        title = para["title"].replace("_", " ")
        out += _paragraph_pairs(title, para["context"], para["qas"], rng,
                                _split_of(para["title"]), "squad2")
    squad11 = list(_jsonl_gz(data / "squad11-train.jsonl.gz"))
    rng.shuffle(squad11)
    names = sorted({p["title"].replace("_", " ") for p in squad11})
    by_article: dict[str, list[dict]] = {}
    for para in squad11:
        by_article.setdefault(para["title"], []).append(para)
    for para in squad11[:9000]:
        title = para["title"].replace("_", " ")
        qas = rng.sample(para["qas"], min(3, len(para["qas"])))
        pairs = list(_paragraph_pairs(title, para["context"], qas, rng, "train", "squad11"))
        out += pairs
        # The neighbouring page: the best-overlapping sentence of another paragraph of
        # the same article, which holds none of the answers.
        others = [p for p in by_article[para["title"]] if p is not para]
        for qa in qas:
            answers = [_norm(a) for a in qa["answers"]]
            if others and rng.random() < 0.7:
                other = rng.choice(others)
                sents = [s for s in split_sentences(other["context"])
                         if not any(a in _norm(s) for a in answers)]
                if sents:
                    q = _words(qa["question"])
                    best = max(sents, key=lambda s: len(q & _words(s)))
                    out.append({"a": qa["question"], "b": answer_window(best, title, "", ""),
                                "label": 0, "split": "train", "src": "squad11-other"})
        # The same answer sentence, asked about another named thing.
        for p in pairs:
            if p["label"] == 1 and rng.random() < 0.3:
                renamed = _renamed_question(p["a"], names, rng)
                if renamed:
                    out.append({"a": renamed, "b": p["b"], "label": 0, "split": "train",
                                "src": "squad11-renamed"})
    for part, split in (("train", "train"), ("dev", "cal"), ("test", "test")):
        with open(data / "trecqa" / f"{part}.csv", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                out.append({"a": row["qtext"], "b": answer_window(row["atext"], "", "", ""),
                            "label": int(row["label"]), "split": split, "src": "trecqa"})
    return out


# ---------------------------------------------------------------- support

_NLI = {"entailment": "entailment", "neutral": "neutral", "contradiction": "contradiction"}


def _snli(data: Path) -> Iterator[dict]:
    d = data / "snli-dev-test"
    for part in ("dev", "test"):
        s1 = (d / f"s1.{part}").read_text(encoding="utf-8").splitlines()
        s2 = (d / f"s2.{part}").read_text(encoding="utf-8").splitlines()
        labels = (d / f"labels.{part}").read_text(encoding="utf-8").splitlines()
        for a, b, label in zip(s1, s2, labels):
            if label in _NLI:
                split = "train" if part == "dev" else _hash_split(a, 0.25)
                yield {"a": a, "b": b, "label": label, "split": split, "src": "snli"}


def _mnli(data: Path) -> Iterator[dict]:
    with open(data / "taxinli" / "taxinli10k.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["label"] in _NLI:
                yield {"a": row["prem"], "b": row["hyp"], "label": row["label"],
                       "split": _hash_split(row["prem"]), "src": "mnli"}


def _rte(data: Path) -> Iterator[dict]:
    for part, split in (("train", "train"), ("dev", "test")):
        with open(data / "glue-rte-train-half" / f"{part}.tsv", encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                label = "entailment" if row["label"] == "entailment" else "not_entailment"
                yield {"a": row["sentence1"], "b": row["sentence2"], "label": label,
                       "split": split, "src": "rte"}


def _climate(data: Path) -> Iterator[dict]:
    mapping = {"SUPPORTS": "entailment", "REFUTES": "contradiction", "NOT_ENOUGH_INFO": "neutral"}
    for rec in _jsonl_gz(data / "climate-fever" / "climate-fever.jsonl.gz"):
        split = _hash_split(rec["claim_id"])
        for ev in rec["evidences"]:
            yield {"a": ev["evidence"], "b": rec["claim"], "label": mapping[ev["evidence_label"]],
                   "split": split, "src": "climate-fever"}


def _curriculum(data: Path, rng: random.Random) -> Iterator[dict]:
    for task in ("negation", "quantifier", "lexical", "conditional", "comparative",
                 "monotonicity_infer", "boolean"):
        with zipfile.ZipFile(data / "curriculum-nli" / f"{task}.zip") as z:
            for part, split, cap in (("train", "train", 1500), ("val", "test", 200)):
                names = [n for n in z.namelist() if n.endswith(f"{task}/{part}.jsonl")
                         and not n.startswith("__MACOSX")]
                if not names:
                    continue
                rows = [json.loads(line) for line in io.TextIOWrapper(z.open(names[0]), "utf-8")
                        if line.strip()]
                rng.shuffle(rows)
                for r in rows[:cap]:
                    label = _NLI.get(r.get("gold_label") or r.get("label"))
                    if label:
                        yield {"a": r["premise"], "b": r["hypothesis"], "label": label,
                               "split": split, "src": f"curriculum-{task}"}


_AUX = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|should|must|may|does|do|did)\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.])")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*")
_DROPPABLE = re.compile(r"\b(not|never|no longer|only|sometimes|often|usually|mostly|"
                        r"partly|almost|nearly|may|might|rarely)\s", re.I)
_MODAL_PARAPHRASE = [
    (re.compile(r"\bmust\b"), "is required to"), (re.compile(r"\bcan\b"), "is able to"),
    (re.compile(r"\bbegan\b"), "started"), (re.compile(r"\bbought\b"), "purchased"),
    (re.compile(r"\blarge\b"), "big"), (re.compile(r"\bshows\b"), "demonstrates"),
]


def _negated(s: str) -> str | None:
    m = _AUX.search(s)
    if not m or s[m.end():].lstrip().startswith(("not", "n't", "never")):
        return None
    return s[: m.end()] + " not" + s[m.end():]


def _figure_changed(s: str, rng: random.Random) -> str | None:
    nums = list(_NUMBER.finditer(s))
    if not nums:
        return None
    m = rng.choice(nums)
    digits = m.group().replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    new = value + rng.choice([1, 2, 3, 10]) if value < 1000 else value + rng.choice([1, 10, 100])
    text = str(int(new)) if new == int(new) and "." not in digits else f"{new:.2f}"
    return s[: m.start()] + text + s[m.end():]


def _name_moved(s: str, paragraph: str, rng: random.Random) -> str | None:
    """A name of the sentence replaced by another name of the same paragraph."""
    mine = [m for m in _NAME.finditer(s) if m.start() > 0]
    theirs = sorted({m.group() for m in _NAME.finditer(paragraph)} - {m.group() for m in mine})
    if not mine or not theirs:
        return None
    m = rng.choice(mine)
    return s[: m.start()] + rng.choice(theirs) + s[m.end():]


def _roles_swapped(s: str) -> str | None:
    names = [m for m in _NAME.finditer(s) if m.start() > 0]
    if len(names) < 2 or names[0].group() == names[1].group():
        return None
    a, b = names[0], names[1]
    return s[: a.start()] + b.group() + s[a.end(): b.start()] + a.group() + s[b.end():]


def _clause_dropped(s: str) -> str | None:
    """The sentence up to its last comma, when what stays is a sentence of its own:
    a trailing modifier dropped states less, so the premise still states it."""
    cut = s.rfind(", ")
    if cut < 25 or _DROPPABLE.search(s[cut:]) or re.search(r"\b(if|unless|except|but|when)\b", s[cut:], re.I):
        return None
    return s[:cut].rstrip() + "."


def _synthetic(paragraphs: list[tuple[str, str]], rng: random.Random, split: str) -> Iterator[dict]:
    """Claims built from real sentences: copies, paraphrases and drops that stay stated;
    negation, figures, names moved between entities, roles swapped, a qualifier
    dropped and another sentence of the paragraph, which do not."""
    for title, context in paragraphs:
        sents = split_sentences(context)
        for i, s in enumerate(sents):
            if len(s) < 30 or rng.random() < 0.5:
                continue
            premise = (sents[i - 1] + " " + s) if i and rng.random() < 0.5 else s
            copy = rng.random()
            made: list[tuple[str | None, str, str]] = [
                (s if copy < 0.3 else None, "entailment", "copy"),
                (s.lower() if copy > 0.85 else None, "entailment", "copy-variant"),
                (_clause_dropped(s), "entailment", "clause-dropped"),
                (_negated(s), "contradiction", "negation"),
                (_figure_changed(s, rng), "contradiction", "figure"),
                (_name_moved(s, context, rng), "not_entailment", "name-moved"),
                (_roles_swapped(s), "not_entailment", "roles-swapped"),
            ]
            for pattern, replacement in _MODAL_PARAPHRASE:
                if pattern.search(s):
                    made.append((pattern.sub(replacement, s, count=1), "entailment", "paraphrase"))
                    break
            dropped = _DROPPABLE.search(s)
            if dropped:
                made.append((s[: dropped.start()] + s[dropped.end():], "not_entailment",
                             "qualifier-dropped"))
            others = [o for j, o in enumerate(sents) if abs(j - i) > 1 and len(o) > 30]
            if others:
                made.append((rng.choice(others), "neutral", "other-sentence"))
            for claim, label, kind in made:
                if claim and (label == "entailment" or _norm(claim) != _norm(s)):
                    yield {"a": premise, "b": claim, "label": label, "split": split,
                           "src": f"synthetic-{kind}"}


def build_support(data: Path, rng: random.Random) -> list[dict]:
    out: list[dict] = []
    out += _snli(data)
    out += _mnli(data)
    out += _rte(data)
    out += _climate(data)
    out += _curriculum(data, rng)
    squad11 = list(_jsonl_gz(data / "squad11-train.jsonl.gz"))
    rng.shuffle(squad11)
    out += _synthetic([(p["title"], p["context"]) for p in squad11[:6000]], rng, "train")
    held = [(p["title"], p["context"]) for p in _jsonl_gz(data / "squad20-dev-29-articles.jsonl.gz")
            if p["title"] in TEST_ARTICLES]
    out += _synthetic(held, rng, "test")
    return out


def _write(path: Path, rows: list[dict]) -> None:
    """Each distinct text once, pairs by index: a window recurs for every question of
    its paragraph (the file is 1/6 the size, small enough to travel to a GPU)."""
    texts: dict[str, int] = {}
    pairs = [[texts.setdefault(r["a"], len(texts)), texts.setdefault(r["b"], len(texts)),
              r["label"], r["split"], r["src"]] for r in rows]
    blob = json.dumps({"texts": list(texts), "pairs": pairs}, ensure_ascii=False)
    path.write_bytes(lzma.compress(blob.encode("utf-8"), preset=9))


def _summary(name: str, rows: list[dict]) -> None:
    counts: dict[tuple[str, str, str], int] = {}
    for r in rows:
        key = (r["split"], r["src"].split("-")[0] if r["src"].startswith("curriculum") else r["src"],
               str(r["label"]))
        counts[key] = counts.get(key, 0) + 1
    print(f"{name}: {len(rows)} pairs")
    for key in sorted(counts):
        print("  ", *key, counts[key])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/train")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, build in (("answerability", build_answerability), ("support", build_support)):
        rows = build(args.data, random.Random(SEED))
        random.Random(SEED).shuffle(rows)
        _write(args.out / f"{name}.json.xz", rows)
        _summary(name, rows)


if __name__ == "__main__":
    main()

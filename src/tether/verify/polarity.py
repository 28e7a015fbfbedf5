"""Cue-word checks: negation, quantifiers and modality, read in the aligned core.

Coverage ignores these words (they are stop words), so a passage that says the
opposite scores as high as one that agrees; these checks are what tell them apart.
Each compares the cues of the whole sentence with the cues in the passage's core (the
shortest stretch holding the matched words, widened a little to catch "No X…" and
"Not all X…" without crossing a clause boundary).

>>> from .lexical import prepare
>>> from .align import align, best_windows
>>> s, p = prepare("The Normans were not in Normandy."), prepare("The Normans were in Normandy.")
>>> [f.reason for f in check_negation(align(s, p, best_windows(s.key_set, p)[0]))]
["negation:sentence says 'not'"]
"""

from __future__ import annotations

from ..text.terms import NEGATION_WORDS
from . import lexicon
from .align import Alignment, Finding
from .lexical import Prepared

__all__ = ["check_modality", "check_negation", "check_quantifier", "cues", "negation_cues"]

NEGATORS = NEGATION_WORDS
# Han characters that negate; scripts without spaces are tokenised as bigrams.
_CJK_NEGATORS = frozenset("不没沒無无非未别別")
_FAIL = frozenset(("fail", "fails", "failed", "failing"))

QUANTIFIERS = {
    "all": "all", "every": "all", "each": "all", "always": "all", "entire": "all",
    "some": "some", "several": "some", "sometimes": "some", "occasionally": "some",
    "most": "most", "mostly": "most", "usually": "most", "generally": "most",
    "often": "most", "many": "most", "majority": "most", "frequently": "most",
    "few": "few", "rarely": "few", "seldom": "few", "minority": "few",
}  # fmt: skip
MODALS = {
    "may": "may", "might": "may", "could": "may", "possibly": "may", "perhaps": "may",
    "potentially": "may", "likely": "may", "probably": "may", "unlikely": "may",
    "can": "can", "able": "can", "must": "must", "certainly": "must",
    "definitely": "must", "necessarily": "must", "should": "should", "ought": "should",
}  # fmt: skip

# How far the core is widened: left catches "No birds…", "Some of the…"; right catches
# a trailing "not" in "…is effective, not…" only within the clause. A negator up to
# _SCOPE tokens further left in the sentence still governs the core ("There is no
# evidence that …") unless a "but" or ";" comes between.
_LEFT, _RIGHT, _SCOPE = 3, 1, 25


def negation_cues(low: list[str], i: int, j: int) -> list[str]:
    """Negation cues among tokens ``[i, j)`` ("not", "n't" forms, "fails to", "free of")."""
    out: list[str] = []
    n = len(low)
    for x in range(i, j):
        w = low[x]
        nxt = low[x + 1] if x + 1 < n else ""
        if w in NEGATORS:
            if w == "not" and nxt in ("only", "just"):
                continue  # "not only … but also" affirms
            if w == "no" and nxt in ("doubt", "matter"):
                continue
            out.append(w)
        elif w.endswith("n't"):
            out.append(w)
        elif len(w) <= 2 and w[0] in _CJK_NEGATORS:
            out.append(w[0])  # only the bigram that starts with it, so it counts once
        elif w in _FAIL and nxt == "to":
            out.append(w + " to")
        elif w in ("absence", "free") and nxt == "of":
            out.append(w + " of")
    return out


# "A shirtless man" is "a man with no shirt", "aimlessly" "with no aim": the suffix
# says the negation the other text spells with "no" or "without".
_PRIVATIVE_SUFFIXES = ("lessly", "less")
_PRIVATIVE_CUES = frozenset(("no", "without"))
_ARTICLES = frozenset(("a", "an", "any"))


def privative_stem(word: str) -> str | None:
    """The noun an "-less" word is without ("shirtless" -> "shirt"), else None."""
    for suffix in _PRIVATIVE_SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            return stem if lexicon.lemmas(stem, "n") else None
    return None


def privative_phrases(low: list[str], i: int, j: int) -> list[tuple[int, int]]:
    """(cue, noun) token pairs of "no X" / "without (a) X" among tokens ``[i, j)``."""
    out = []
    for x in range(i, j):
        if low[x] in _PRIVATIVE_CUES:
            y = x + 1
            if y < j and low[y] in _ARTICLES and low[x] == "without":
                y += 1
            if y < j:
                out.append((x, y))
    return out


def privative_noun(word: str, stem: str) -> bool:
    """Whether ``word`` is the noun ``stem`` names ("shirts" for "shirt")."""
    return word == stem or stem in lexicon.lemmas(word, "n")


def _privatives_said(said: list[str], low: list[str], i: int, j: int, other: list[str]) -> list[str]:
    """``said`` (negation cues of tokens ``[i, j)``) less the cues of "no X" phrases the
    other text says with "X-less" (``other``: its words)."""
    stems = [stem for w in other if (stem := privative_stem(w))]
    if not stems:
        return said
    left = list(said)
    for cue, noun in privative_phrases(low, i, j):
        if low[cue] in left and any(privative_noun(low[noun], stem) for stem in stems):
            left.remove(low[cue])
    return left


def cues(low: list[str], i: int, j: int, table: dict[str, str]) -> dict[str, str]:
    """Class → first word for the quantifier or modal cues among tokens ``[i, j)``."""
    out: dict[str, str] = {}
    for x in range(i, j):
        w = low[x]
        cls = table.get(w)
        if cls is None:
            continue
        prev = low[x - 1] if x > 0 else ""
        nxt = low[x + 1] if x + 1 < len(low) else ""
        if w == "most" and prev in ("the", "at"):
            continue  # superlative / "at most"
        if w == "all" and prev in ("at", "after"):
            continue
        if w == "each" and nxt == "other":
            continue
        if w == "some" and nxt[:1].isdigit():
            continue  # "some 500": an approximation, the figure check reads it
        if w == "few" and prev == "a":
            cls, w = "some", "a few"
        out.setdefault(cls, w)
    return out


def _core(a: Alignment) -> tuple[int, int]:
    """The aligned core widened within its clause."""
    p = a.passage
    if a.c1 <= a.c0:
        return a.c0, a.c1
    i, j = a.c0, a.c1
    clause = p.clause[i]
    for _ in range(_LEFT):
        if i - 1 < a.t0 or p.clause[i - 1] != clause:
            break
        i -= 1
    clause = p.clause[j - 1]
    for _ in range(_RIGHT):
        if j >= a.t1 or p.clause[j] != clause:
            break
        j += 1
    return i, j


def _quantified_core(a: Alignment) -> tuple[int, int]:
    """The core (``_core``) and up to ``_LEFT`` tokens before it across a clause edge:
    where an "only", a negator or "a large group of" that bears on it stands."""
    i, j = _core(a)
    return max(a.t0, i - _LEFT), j


_CONTRAST = frozenset("but however yet although though whereas while instead".split())


def _scope_cue(p: Prepared, i: int, t0: int) -> str | None:
    """A negator governing the core from further left in its sentence: "There is no
    evidence that …", "does not stand …, smiling …"; a "but" in between ends it."""
    lo = max(t0, i - _SCOPE)
    sent = p.sent[i] if i < len(p.sent) else -1
    for x in range(i - 1, lo - 1, -1):
        if p.sent[x] != sent or p.low[x] in _CONTRAST:
            break
        if ";" in p.text[p.ends[x] : p.starts[x + 1]]:
            break
        if negation_cues(p.low, x, x + 1):
            return p.low[x]
    return None


def _negated_scope(p: Prepared, i: int, j: int) -> set[str]:
    """Content keys after the first negator in ``[i, j)``, to the end of its clause."""
    low, keys, clause = p.low, p.keys, p.clause
    for x in range(i, j):
        if negation_cues(low, x, x + 1):
            out: set[str] = set()
            y = x + 1
            while y < len(low) and clause[y] == clause[x]:
                if keys[y]:
                    out.add(keys[y])  # type: ignore[arg-type]
                y += 1
            return out
    return set()


def _negated_heads(p: Prepared, i: int, j: int) -> list[tuple[str, str]]:
    """(key, word) of the first content word after each negator in ``[i, j)``, in its
    clause: what the negation is about ("not *looking*", "no *evidence*")."""
    out: list[tuple[str, str]] = []
    low, keys, clause = p.low, p.keys, p.clause
    for x in range(i, j):
        if not negation_cues(low, x, x + 1):
            continue
        for y in range(x + 1, min(len(low), x + 8)):
            if clause[y] != clause[x]:
                break
            k = keys[y]
            if k is not None and not k.startswith("#") and low[y] not in NEGATORS:
                out.append((k, low[y]))
                break
    return out


def _flip(reason: str) -> Finding:
    return Finding("contradiction", "contradicts", "polarity", reason, "negation")


def check_negation(a: Alignment, off: frozenset[str] = frozenset()) -> list[Finding]:
    """Negation added or removed between the sentence and the aligned region.

    Counts are compared, not just presence ("did not differ … were not considered"
    against one "not"). When both sides negate, entailment runs the other way inside
    the negation: "not walking the dog" does not give "not walking", so every word the
    passage negates must be in the sentence.
    """
    c, p = a.claim, a.passage
    said = negation_cues(c.low, 0, len(c.low))
    i, j = _core(a)
    found = negation_cues(p.low, i, j)
    if not found and (scope := _scope_cue(p, a.c0, a.t0)) is not None:
        found = [scope]
    # "a man with no shirt" and "a shirtless man" negate alike, either way round.
    if "privative-negation" not in off:
        found = _privatives_said(found, p.low, i, j, c.low)
        said = _privatives_said(said, c.low, 0, len(c.low), p.low[i:j])
    if len(said) != len(found):
        if len(found) > len(said):
            extra = next((w for w in found if w not in said), found[0])
            return [_flip(f"negation:passage says '{extra}'")]
        extra = next((w for w in said if w not in found), said[0])
        return [_flip(f"negation:sentence says '{extra}'")]
    if said:
        mine = _negated_heads(c, 0, len(c.low))
        theirs = _negated_heads(p, i, j) or _negated_heads(p, a.t0, a.c0)
        other = [w for k, w in mine if k not in {t for t, _ in theirs}]
        if theirs and other:
            # "There is not a door" from "A child is not looking out of a door".
            return [
                Finding(
                    "contradiction", "missing", "polarity",
                    f"negation:the sentence negates '{other[0]}', the passage '{theirs[0][1]}'", "negation",
                )
            ]  # fmt: skip
        lacking = sorted(_negated_scope(p, i, j) - c.key_set)
        if lacking:
            return [
                Finding(
                    "contradiction", "missing", "polarity",
                    f"negation:passage negates more ('{lacking[0]}' not in sentence)", "negation",
                )
            ]  # fmt: skip
    return []


def check_quantifier(a: Alignment, off: frozenset[str] = frozenset()) -> list[Finding]:
    """All/some/most/few (and always/sometimes/usually/rarely) must agree.

    A sentence without a quantifier may rest on a universal one ("Birds fly" on "All
    birds fly"), and "some" on none ("Some kittens eat" on "The kittens eat"); a
    sentence that drops the passage's "some" generalises (at best mentioned); every
    other difference overreaches.
    """
    c = a.claim
    said = cues(c.low, 0, len(c.low), QUANTIFIERS)
    i, j = _core(a)
    found = cues(a.passage.low, i, j, QUANTIFIERS)
    if set(said) == set(found) or (not said and set(found) == {"all"}):
        return []
    if set(said) == {"some"} and not found:
        return []  # "some kittens are eating" is said by "the kittens are eating"
    if not found and "many-stated" not in off and _many_stated(a):
        return []  # "many dogs" from "a large group of dogs" (ADR 0039)
    mine = next((said[k] for k in said if k not in found), None) or "(none)"
    theirs = next((found[k] for k in found if k not in said), None) or "(none)"
    reason = f"quantifier:{mine} vs {theirs}"
    if not said and set(found) == {"some"} and "ongoing-event" not in off and _ongoing(c) and not _downward(a):
        return []  # "men are sawing" from "some men are sawing": an event, not a rule
    if not said and set(found) == {"some"}:
        # "people are walking" from "some people are walking": a generalisation the
        # passage does not make, though not its opposite.
        return [Finding("contradiction", "missing", "quantifier", reason, "quantifier")]
    return [Finding("contradiction", "contradicts", "quantifier", reason, "quantifier")]


_BE_NOW = frozenset("is are am being".split())
# Adverbs that may stand between "is" and its participle without making the event a
# rule or its denial: "is quickly chopping", "is being hungrily drunk" (ADR 0039).
_BETWEEN = 2


def _ongoing(c: Prepared) -> bool:
    """The sentence reports an ongoing event ("… are sawing", "… is quickly chopping",
    "… is being cut"): its bare plurals and mass nouns are "some", not a generalisation."""
    low = c.low
    for x, w in enumerate(low):
        if w not in _BE_NOW or w == "being":
            continue
        for y in range(x + 1, min(len(low), x + 2 + _BETWEEN)):
            v = low[y]
            if (v.endswith("ing") and len(v) > 4) or (v == "being" and w != "being"):
                return True
            if not _plain_adverb(v):
                break
    return False


def _plain_adverb(w: str) -> bool:
    """An adverb of manner or time ("quickly", "still"), not a negator ("never"), a
    quantifier ("always", "rarely") or a modal ("probably")."""
    if w in NEGATORS or w in QUANTIFIERS or w in MODALS or w.endswith("n't") or w in _DOWNWARD:
        return False
    return bool(lexicon.lemmas(w, "r"))


# Words that turn entailment round in what follows them ("not chopping some onions" does
# not give "not chopping onions"), besides the negators; "few" and "rarely" are
# quantifiers and never agree with a sentence that lacks them.
_DOWNWARD = frozenset(("only", "just", "hardly", "barely", "scarcely", "seldom", "rarely", "few"))


def _downward(a: Alignment) -> bool:
    """A negation or "only" in the sentence or the passage's core: dropping "some"
    there is no longer a weaker claim ("not eating some bamboo" / "not eating bamboo")."""
    c, p = a.claim, a.passage
    i, j = _quantified_core(a)
    for low, x0, x1 in ((c.low, 0, len(c.low)), (p.low, i, j)):
        if negation_cues(low, x0, x1):
            return True
        # "a few" is "some", upward; "few" alone is not.
        for x in range(x0, x1):
            if low[x] in _DOWNWARD and not (low[x] == "few" and x > 0 and low[x - 1] == "a"):
                return True
    return _scope_cue(p, a.c0, a.t0) is not None


# A noun phrase that states "many": "a lot of", "lots of", "a crowd of", "dozens of"
# (a noun WordNet defines in its first sense as "a large number"), or "a large / big
# group / crowd / number of" (an adjective WordNet gives for "large" before a noun
# for a group, or "number") (ADR 0039).
_LARGE = "large"


def _large_number_noun(w: str) -> bool:
    # WordNet's gloss of "lot" opens "(often followed by `of') a large number …", a
    # parenthesis the gloss reader stops at; its plural "lots" is read as it stands.
    return lexicon.defined_as(w, _LARGE, "number") or (
        w == "lot" and lexicon.defined_as("lots", _LARGE, "number")
    )


def _group_noun(w: str) -> bool:
    # A group of two ("a large pair of boots") is large only in its members' size.
    if lexicon.licenses(w, "pair", "n", "n"):
        return False
    return w == "number" or lexicon.kind_of(w, "group")


def _large(w: str) -> bool:
    return w == _LARGE or lexicon.licenses(w, _LARGE, "a", "a")


def _head_after(p: Prepared, x: int, stop: int) -> int | None:
    """The first content token after ``x`` in its clause, before ``stop``."""
    for y in range(x + 1, min(stop, x + 4)):
        if p.clause[y] != p.clause[x]:
            return None
        k = p.keys[y]
        if k is not None and not k.startswith("#"):
            return y
    return None


def _many_phrases(p: Prepared, i: int, j: int) -> list[int]:
    """Tokens in ``[i, j)`` that a "many"-stating phrase quantifies: the noun after "of"
    in "a lot of dogs", "a large group of dogs", "crowds of people"."""
    out = []
    low = p.low
    for x in range(max(i, 1), j):
        if low[x] != "of":
            continue
        n = low[x - 1]
        big = _large_number_noun(n) or (
            x >= 2 and _large(low[x - 2]) and _group_noun(n)
        )
        if big and (h := _head_after(p, x, j)) is not None:
            out.append(h)
    return out


def _many_stated(a: Alignment) -> bool:
    """The sentence's one quantifier is "many", said of a noun that a "many" phrase of
    the passage's core quantifies (the same noun, or one it licenses), and neither side
    negates: "many cheerleaders" from "a large group of cheerleaders"; not from "a
    group of cheerleaders", nor "many dogs" from "a large group of cats"."""
    c, p = a.claim, a.passage
    low = c.low
    at = [x for x, w in enumerate(low) if QUANTIFIERS.get(w) is not None]
    if len(at) != 1 or low[at[0]] != "many" or _downward(a):
        return False
    head = _head_after(c, at[0], len(low))
    if head is None:
        return False
    for y in _many_phrases(p, *_quantified_core(a)):
        if p.keys[y] == c.keys[head] or lexicon.licenses(p.low[y], low[head], "n", "n"):
            return True
    return False


def check_modality(a: Alignment) -> list[Finding]:
    """May/can/must/should against a plain assertion ("does") must agree."""
    c = a.claim
    said = cues(c.low, 0, len(c.low), MODALS)
    i, j = _core(a)
    found = cues(a.passage.low, i, j, MODALS)
    if set(said) == set(found):
        return []
    mine = next((said[k] for k in said if k not in found), None) or "does"
    theirs = next((found[k] for k in found if k not in said), None) or "does"
    return [Finding("contradiction", "contradicts", "modality", f"modality:{mine} vs {theirs}", "modality")]

"""Every claim word accounted for, roles and relation words unchanged.

Coverage says how many of the claim's words the passage window holds; it cannot say
that the one word it lacks was swapped for its opposite ("a man" for "a woman"), that
two words traded places ("a dog is licking a baby" from "a baby is licking a dog"), or
that the word binding them changed ("onto" for "off"). This layer reads the aligned
window for those three:

- ``account``: a claim word the window does not repeat must be licensed by a window
  word (``tether.text.lexicon``: same lemma, synonym, or a hypernym the premise
  states). Otherwise, with a window word in its slot it is a *substitution* —
  contradicting when the two are exclusive (antonyms, co-hyponyms) — and without one
  an *added detail*; either way the claim is at best ``mentioned``.
- ``roles``: three aligned words in the claim's order ``x … v … y`` that the passage
  has as ``y … v … x`` (no passive "by" between) — roles reversed, contradicted.
- ``relations``: the relation words between two aligned neighbours (prepositions and
  particles) must agree; an exclusive change (onto/off, in/out) contradicts, any other
  change caps the claim at ``mentioned``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text import lexicon
from ..text.terms import NEGATION_WORDS
from .align import Alignment, Finding, anchors
from .lexical import Prepared
from .polarity import _negated_scope

__all__ = ["Accounting", "RELATION_WORDS", "account"]

# Closed-class words that bind two content words; WordNet does not cover them, so the
# exclusive pairs are listed here (docs/adr/0015-wordnet-lexicon.md).
RELATION_WORDS = frozenset(
    """in on at onto into off out from to with without over under above below up down
    inside outside near far away behind beside toward towards along around across
    through before after against beneath underneath about for front top next middle""".split()
)
# Spellings of one relation: "put in the trunk" is "put into the trunk".
_SAME_RELATION = {"into": "in", "inside": "in", "within": "in", "onto": "on", "upon": "on",
                  "towards": "toward", "underneath": "under", "beneath": "under"}
# How far apart two aligned neighbours may be for the words between them to be read.
_RELATION_REACH = 8
_EXCLUSIVE = {
    frozenset(pair.split("/"))
    for pair in """on/off onto/off into/out in/out inside/outside up/down above/below
    over/under to/from onto/from into/from toward/away towards/away with/without
    before/after near/far in/far at/far on/far in/away at/away on/away into/off
    beneath/above underneath/above under/on under/onto""".split()
}
# A clause too long to compare word orders in: its roles are not read (bounded cost).
_MAX_ROLE_WORDS = 12


@dataclass(frozen=True, slots=True)
class Accounting:
    """What the window makes of the claim's words.

    ``licensed``: claim keys the window licenses without repeating them;
    ``caps``: reasons the claim is at best ``mentioned`` (always on);
    ``findings``: exclusive substitutions, reversed roles and exclusive relation
    changes, which make it ``contradicted`` (the contradiction gate).
    """

    licensed: frozenset[str]
    caps: tuple[str, ...]
    findings: tuple[Finding, ...]


def _contra(checker: str, reason: str) -> Finding:
    return Finding("contradiction", "contradicts", checker, reason)


def _is_word(p: Prepared, x: int) -> bool:
    # Figures are the figure check's; a word of any script must be accounted for
    # (only English words can be licensed by another word).
    k = p.keys[x]
    return k is not None and not k.startswith("#") and p.low[x][:1].isalpha()


def account(a: Alignment) -> Accounting:
    """Account for every claim word, then read roles and relation words."""
    c, p = a.claim, a.passage
    window = [z for z in range(a.t0, a.t1) if _is_word(p, z)]
    free = [z for z in window if p.keys[z] not in c.key_set]
    licensed: set[str] = set()
    caps: list[str] = []
    findings: list[Finding] = []
    seen: set[str] = set()
    negated = _negated_tokens(c)
    negated_keys = {c.keys[y] for y in negated if c.keys[y] in a.matched}
    p_negated = _negated_scope(p, a.t0, a.t1) if negated else set()
    for x in range(len(c.keys)):
        k = c.keys[x]
        if k is None or k in a.matched or k in seen or not _is_word(c, x):
            continue
        seen.add(k)
        word = c.low[x]
        if any(lexicon.licenses(p.low[z], word) for z in _distinct(p, window)):
            licensed.add(k)
            continue
        other = _counterpart(a, x, free)
        if other is None and x in negated and negated_keys & set(c.keys[:x]) & p_negated:
            # "not walking the dog" states "not walking the dog in the park".
            licensed.add(k)
            continue
        if other is not None and lexicon.exclusive(p.low[other], word):
            findings.append(_contra("lexicon", f"substitution:'{word}' vs '{p.low[other]}'"))
        elif other is None and (rival := _exclusive_in_sentence(a, word, free)) is not None:
            findings.append(_contra("lexicon", f"substitution:'{word}' vs '{rival}'"))
        if other is not None:
            caps.append(f"substitution:'{word}' where the passage has '{p.low[other]}'")
        else:
            caps.append(f"added:'{word}' is not stated by the passage")
    role = _reversed_roles(a)
    if role is not None:
        findings.append(_contra("roles", role))
        caps.append(role)
    elif (turned := _participle_turned(a)) is not None:
        caps.append(turned)
    caps_rel, found_rel = _relations(a)
    return Accounting(frozenset(licensed), (*caps, *caps_rel), (*findings, *found_rel))


def _negated_tokens(c: Prepared) -> set[int]:
    """Claim tokens after a negator in its clause."""
    out: set[int] = set()
    for x, w in enumerate(c.low):
        if w in NEGATION_WORDS or w.endswith("n't"):
            y = x + 1
            while y < len(c.low) and c.clause[y] == c.clause[x]:
                out.add(y)
                y += 1
    return out


def _distinct(p: Prepared, tokens: list[int]) -> list[int]:
    seen: set[str] = set()
    out = []
    for z in tokens:
        if p.low[z] not in seen:
            seen.add(p.low[z])
            out.append(z)
    return out


def _counterpart(a: Alignment, x: int, free: list[int]) -> int | None:
    """The unmatched window word the claim word's neighbours point at."""
    spots = anchors(a, x, x + 1)
    allowed = set(free)
    best = [(w, z) for z, w in spots.items() if z in allowed]
    return max(best)[1] if best else None


def _exclusive_in_sentence(a: Alignment, word: str, free: list[int]) -> str | None:
    p = a.passage
    for z in _distinct(p, free):
        if p.sent[z] == a.main and lexicon.exclusive(p.low[z], word):
            return p.low[z]
    return None


def _unique_positions(a: Alignment) -> list[tuple[int, int]]:
    """(claim token, passage token) for aligned words found once on each side."""
    c, p = a.claim, a.passage
    counts: dict[str, int] = {}
    for k in c.keys:
        if k:
            counts[k] = counts.get(k, 0) + 1
    out = []
    for x, k in enumerate(c.keys):
        if not k or counts[k] != 1 or k not in a.matched or k.startswith("#"):
            continue
        if c.low[x] in RELATION_WORDS:
            continue
        inside = [y for y in a.positions.get(k, ()) if a.c0 <= y < a.c1]
        if len(inside) == 1:
            out.append((x, inside[0]))
    del p
    return out


def _reversed_roles(a: Alignment) -> str | None:
    c, p = a.claim, a.passage
    seq = _unique_positions(a)[:_MAX_ROLE_WORDS]
    n = len(seq)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                (xi, pi), (xj, pj), (xk, pk) = seq[i], seq[j], seq[k]
                if not pi > pj > pk:
                    continue
                if not c.clause[xi] == c.clause[xk] or not p.clause[pi] == p.clause[pk]:
                    continue
                if _passive(c, xj) or _passive(p, pj) or not _verb_like(c, xj):
                    continue  # a passive: "the potato is peeled by the woman"
                return (
                    f"roles:'{c.low[xi]}' and '{c.low[xk]}' trade places around '{c.low[xj]}'"
                )
    return None


_AUX = frozenset("is are was were be been being has have had will would can could does did do".split())


def _verb_like(p: Prepared, z: int) -> bool:
    """Roles turn on a verb: "a dog is licking a baby", "Rollo agreed …"; a noun in a
    compound ("pump house detectors" / "detectors in the pump house") does not."""
    word = p.low[z]
    inflected = word.endswith(("ing", "ed", "s")) or (z > 0 and p.low[z - 1] in _AUX)
    return inflected and bool(lexicon.lemmas(word, "v"))


def _passive(p: Prepared, z: int) -> bool:
    """A "by" in the sentence of token ``z``: its roles may be passive."""
    t0, t1 = p.sent_tokens[p.sent[z]]
    return "by" in p.low[t0:t1]


def _participle_turned(a: Alignment) -> str | None:
    """"playing a trumpet" against "a trumpet playing": the verb and its object in
    the claim are noun and participle in the passage, which binds them otherwise."""
    c, p = a.claim, a.passage
    seq = _unique_positions(a)
    for (x1, p1), (x2, p2) in zip(seq, seq[1:]):
        if p1 - p2 != 1 or c.clause[x1] != c.clause[x2] or not _verb_like(c, x1):
            continue
        if _passive(c, x1) or _passive(p, p1):
            continue
        return f"roles:'{c.low[x1]} … {c.low[x2]}' is '{p.low[p2]} {p.low[p1]}' in the passage"
    return None


def _relation_set(words: list[str]) -> set[str]:
    return {_SAME_RELATION.get(w, w) for w in words if w in RELATION_WORDS} - {"of"}


def _trailing(p: Prepared, z: int) -> list[str]:
    """Relation words right after token ``z`` in its clause ("looking up")."""
    out: list[str] = []
    for y in range(z + 1, min(len(p.low), z + 4)):
        if p.clause[y] != p.clause[z]:
            break
        if p.low[y] in RELATION_WORDS:
            out.append(p.low[y])
        elif p.keys[y] is not None:
            break
    return out


def _relations(a: Alignment) -> tuple[list[str], list[Finding]]:
    c, p = a.claim, a.passage
    where = dict(_unique_positions(a))
    caps: list[str] = []
    findings: list[Finding] = []
    anchored = sorted(where)
    spans: list[tuple[set[str], set[str]]] = []
    for left, right in zip(anchored, anchored[1:]):
        pl, pr = where[left], where[right]
        if c.clause[left] != c.clause[right] or not 0 < pr - pl <= _RELATION_REACH:
            continue
        if p.sent[pl] != p.sent[pr]:
            continue
        spans.append((_relation_set(c.low[left + 1 : right]), _relation_set(p.low[pl + 1 : pr])))
    if anchored:
        last = anchored[-1]
        said = _relation_set(_trailing(c, last))
        if said and not any(k for k in c.keys[last + 1 :] if k and k not in RELATION_WORDS):
            spans.append((said, _relation_set(_trailing(p, where[last]))))
    for said, found in spans:
        if not said or not found or said == found:
            continue
        pair = next(((s, f) for s in sorted(said) for f in sorted(found)
                     if frozenset((s, f)) in _EXCLUSIVE), None)  # fmt: skip
        mine, theirs = "/".join(sorted(said)), "/".join(sorted(found))
        if pair is not None:
            findings.append(_contra("relation", f"relation:'{pair[0]}' vs '{pair[1]}'"))
        caps.append(f"relation:'{mine}' where the passage has '{theirs}'")
    return caps, findings

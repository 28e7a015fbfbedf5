"""Entity checks: figures, years and capitalised names, each in its slot.

A detail of the sentence that the aligned region lacks is ``missing`` (the pair is at
best ``mentioned``); when the region has a *different* detail in the same slot (same
unit, or the same words around it) the pair is ``contradicted``.

>>> from .lexical import prepare
>>> from .align import align, best_windows
>>> s = prepare("The plant emitted 412500 tonnes in 2026.")
>>> p = prepare("The plant emitted 14125001 tonnes in 2026.")
>>> [f.reason for f in check_figures(align(s, p, best_windows(s.key_set, p)[0]))]
['figure:412500 not in passage, passage has 14125001']
"""

from __future__ import annotations

from collections import Counter

from ..text.terms import STOPWORDS, stem
from . import lexicon
from .align import Alignment, Effect, Finding, Gate, anchors, context_keys
from .figures import Figure, same_figure
from .lexical import _NUMBER_WORDS as _NUMBERS
from .lexical import Prepared

__all__ = ["Names", "check_figures", "check_names", "check_years", "name_runs"]

# (keys capitalised mid-sentence, keys written in lower case) over sentence and passage.
Names = tuple[frozenset[str], frozenset[str]]
# Capitalised words that open sentences without naming anything.
_NOT_NAMES = STOPWORDS | frozenset(
    "first second third last next then finally someone somebody something everyone "
    "everybody anyone anybody".split()
)
# A slot must be predicted at least this firmly (one neighbour at the exact distance)
# before a different name or figure there counts as a swap.
_MIN_SLOT_SCORE = 3
# A "sentence" with more figures or names than this is a table or a list, not a claim;
# it is reported as not checkable (at best mentioned) instead of costing quadratic time.
_MAX_ITEMS = 64


def _token_span(p: Prepared, fig: Figure) -> tuple[int, int]:
    i, j = p.token_range(fig.start, fig.end)
    return i, max(j, i + 1)


def _context(p: Prepared, fig: Figure) -> set[str]:
    i, j = _token_span(p, fig)
    return context_keys(p, i, j)


def _qualifier_ok(claim: Figure, other: Figure) -> bool:
    # An approximate claim may rest on an exact figure; the reverse overstates precision,
    # and "more than 5" is not "less than 5".
    if claim.qualifier == other.qualifier:
        return True
    return claim.qualifier == "approx" and other.qualifier is None


def _figures_at(spots: dict[int, int], at: dict[int, Figure]) -> list[tuple[int, Figure]]:
    """Region figures the anchors point at, with the best anchor score on each."""
    best: dict[int, tuple[int, Figure]] = {}
    for z, w in spots.items():
        g = at.get(z)
        if g is not None and w > best.get(id(g), (0, g))[0]:
            best[id(g)] = (w, g)
    return list(best.values())


def _token_map(p: Prepared, figs: list[Figure]) -> dict[int, Figure]:
    out: dict[int, Figure] = {}
    for g in figs:
        i, j = _token_span(p, g)
        for z in range(i, j):
            out[z] = g
    return out


def check_figures(a: Alignment) -> list[Finding]:
    """Every non-year figure of the sentence must be in the region, in its slot, with
    its qualifiers and its year."""
    claim_figs = [f for f in a.claim.figures if f.kind != "year"]
    if not claim_figs:
        return []
    if len(claim_figs) > _MAX_ITEMS:
        return [_missing(f"figure:{len(claim_figs)} figures, too many to check")]
    here = a.passage.figures_in(a.start, a.end)
    region = [f for f in here if f.kind != "year"]
    years_here = {f.canon for f in here if f.kind == "year"}
    by_value: dict[str, list[Figure]] = {}
    for g in region:
        by_value.setdefault(_value_key(g), []).append(g)
    at = _token_map(a.passage, region)
    used: set[int] = set()
    out: list[Finding] = []
    for f in claim_figs:
        if region and _value_key(f) not in by_value and _counted(a, f):
            continue  # "four people" from "a man, a woman and two girls"
        i, j = _token_span(a.claim, f)
        at_slot = _figures_at(anchors(a, i, j), at)
        pool = region if f.qualifier == "approx" else by_value.get(_value_key(f), [])
        same = [g for g in pool if same_figure(f, g) and id(g) not in used]
        own_score = max((w for w, g in at_slot if same_figure(f, g)), default=0)
        own = [g for w, g in at_slot if same_figure(f, g) and w == own_score]
        rivals = [g for w, g in sorted(at_slot, key=lambda x: -x[0])
                  if w > own_score and not same_figure(f, g) and _comparable(f, g)]  # fmt: skip
        if rivals and max(w for w, _ in at_slot) >= _MIN_SLOT_SCORE:
            # The words around the figure hold another figure in the passage.
            there = rivals[0].canon
            out.append(
                _contra(f"figure:{f.canon} vs {there} in that place")
                if same
                else _contra(f"figure:{f.canon} not in passage, passage has {there}")
            )
            continue
        if own:
            same = own + [g for g in same if g not in own]
        if same:
            used.add(id(same[0]))
            out += _found_differs(a, f, same, years_here)
            continue
        slot = _slot(a, f, region)
        if slot is not None:
            out.append(_contra(f"figure:{f.canon} not in passage, passage has {slot.canon}"))
        elif not region and _counted(a, f):
            continue  # "two people" from "a man and a woman"
        else:
            out.append(_missing(f"figure:{f.canon} not in passage"))
    return out



def _found_differs(a: Alignment, f: Figure, same: list[Figure], years_here: set[str]) -> list[Finding]:
    """The claim figure ``f``, found in the region (``same``): its unit, qualifier or
    year may still differ."""
    if f.unit and not any(g.unit for g in same) and (word := _unit_unstated(a, f)):
        # "the 13th hours" from "the 13th centuries": the unit is a claim word.
        return [_missing(f"figure:{f.canon} {word}: '{word}' not in passage")]
    if not any(_qualifier_ok(f, g) for g in same):
        return [_contra(f"figure:{_show(f)} vs {_show(same[0])} (qualifier)")]
    if f.year is not None and not any(g.year == f.year for g in same):
        dated = [g.year for g in same if g.year is not None]
        if dated:
            return [_contra(f"figure:{f.canon} is the {dated[0]} figure, not {f.year}")]
        if f.year not in years_here:
            return [_missing(f"figure:{f.canon} for {f.year} not in passage")]
    return []

_ONE = frozenset(("a", "an", "one", "another"))
_JOINS = frozenset(("and",))


def _counted(a: Alignment, f: Figure) -> bool:
    """A small count the window states by naming each one: "two people" from "a man and
    a woman", "two cars" from "a white car and a yellow car", "two kids" from "a pair
    of kids", "four people" from "a man, a woman and two girls". Each named one is a
    singular noun after "a"/"one", or a plural after a small count, that says the
    claim's noun (``lexicon.licenses``), all in one run joined by "and" or commas; the
    counts add up to the claim's."""
    c, p = a.claim, a.passage
    if f.value is None or f.value != int(f.value) or not 2 <= f.value <= 10 or f.qualifier or f.unit:
        return False
    _, j = _token_span(c, f)
    head = j
    while head + 1 < len(c.keys) and c.keys[head + 1] is not None and c.clause[head + 1] == c.clause[j]:
        head += 1  # "two white puppies": the noun ends the run of content words
    if head >= len(c.keys) or c.keys[head] is None:
        return False
    noun = c.low[head]
    for z in range(a.t0, a.t1 - 2):
        if f.value == 2 and p.low[z] == "pair" and p.low[z + 1] == "of":
            if any(p.keys[y] and lexicon.licenses(p.low[y], noun) for y in range(z + 2, min(a.t1, z + 5))):
                return True
    named: list[int] = []
    total = 0
    for z in range(a.t0, a.t1):
        k = p.keys[z]
        if k is None or k.startswith("#") or not lexicon.licenses(p.low[z], noun):
            continue
        singular = p.low[z] in lexicon.lemmas(p.low[z], "n")
        y = z - 1
        while y >= a.t0 and (q := p.keys[y]) is not None and not q.startswith("#") and z - y < 4:
            y -= 1  # over the noun's modifiers ("a white car")
        if y < a.t0:
            continue
        many = _small_count(p, y)
        if singular and (p.low[y] in _ONE or many == 1):
            n = 1
        elif not singular and many is not None and many >= 2:
            n = many  # "two girls"
        else:
            continue
        between = p.low[named[-1] + 1 : y] if named else []
        if named and (p.sent[named[-1]] != p.sent[z] or (between and not set(between) & _JOINS)):
            break  # not one run of names ("a man is talking to a woman"); a comma is no token
        named.append(z)
        total += n
    return len(named) >= 2 and total == f.value


def _small_count(p: Prepared, y: int) -> int | None:
    """The whole number 1–10 token ``y`` of ``p`` is, with no unit or qualifier."""
    if not (p.keys[y] or "").startswith("#"):
        return None
    for g in p.figures_in(p.starts[y], p.ends[y]):
        plain = not (g.unit or g.qualifier or g.currency or g.high is not None or g.kind != "number")
        if plain and g.value is not None and g.value == int(g.value) and 1 <= g.value <= 10:
            return int(g.value)
    return None


def _unit_unstated(a: Alignment, f: Figure) -> str | None:
    """The claim figure's unit word, when the window does not say it."""
    c, p = a.claim, a.passage
    i, j = _token_span(c, f)
    words = [c.low[x] for x in range(i, j) if c.low[x][:1].isalpha() and c.low[x] not in _NUMBERS]
    if not words:
        return None
    window = {stem(w) for w in p.low[a.t0 : a.t1]}
    missing = [w for w in words if stem(w) not in window]
    return missing[0] if missing else None


def _value_key(f: Figure) -> str:
    # Exact values meet here; an approximate claim scans the region instead.
    return f.canon if f.value is None else f"{f.value:.9g}/{f.high}"


def _comparable(f: Figure, g: Figure) -> bool:
    return (f.kind == "ordinal") == (g.kind == "ordinal")


def _show(f: Figure) -> str:
    return f"{f.qualifier_text} {f.canon}" if f.qualifier_text else f.canon


def _slot(a: Alignment, f: Figure, region: list[Figure]) -> Figure | None:
    """The region figure in the same slot as ``f``: same unit/currency or same context."""
    if not region:
        return None
    ctx = _context(a.claim, f)
    best: tuple[int, Figure] | None = None
    for g in region:
        if not _comparable(f, g):
            continue
        score = 2 * len(ctx & _context(a.passage, g))
        if f.unit and f.unit == g.unit or f.currency and f.currency == g.currency:
            score += 3
        if score and (best is None or score > best[0]):
            best = (score, g)
    return best[1] if best else None


def check_years(a: Alignment) -> list[Finding]:
    """Years (and decades) of the sentence must appear in the region, in their slot."""
    claim_years = [f for f in a.claim.figures if f.kind == "year"]
    if not claim_years:
        return []
    if len(claim_years) > _MAX_ITEMS:
        return [_missing(f"year:{len(claim_years)} years, too many to check")]
    region = [f for f in a.passage.figures_in(a.start, a.end) if f.kind == "year"]
    at = _token_map(a.passage, region)
    remaining = Counter(part for g in region for part in _year_parts(g))
    out: list[Finding] = []
    for y in claim_years:
        parts = _year_parts(y)
        i, j = _token_span(a.claim, y)
        at_slot = _figures_at(anchors(a, i, j), at)
        # Own: the passage year holds the sentence's ("2019" in "2019-20"), not the reverse.
        own_score = max((w for w, g in at_slot if set(parts) <= set(_year_parts(g))), default=0)
        rivals = [g for w, g in sorted(at_slot, key=lambda x: -x[0])
                  if w > own_score and not set(parts) <= set(_year_parts(g))]  # fmt: skip
        if rivals and max(w for w, _ in at_slot) >= _MIN_SLOT_SCORE:
            out.append(_contra(f"year:{y.canon} vs {rivals[0].canon}"))
            continue
        missing = [part for part in parts if remaining[part] <= 0]
        for part in parts:
            remaining[part] -= 1
        if not missing:
            continue
        ctx = _context(a.claim, y)
        others = [
            (len(ctx & _context(a.passage, g)), g)
            for g in region
            if not set(parts) <= set(_year_parts(g))
        ]
        best = max(others, key=lambda x: x[0], default=None)
        if best is not None and best[0] > 0:
            out.append(_contra(f"year:{y.canon} vs {best[1].canon}"))
        else:
            out.append(_missing(f"year:{y.canon} not in passage"))
    return out


def _year_parts(f: Figure) -> tuple[str, ...]:
    if f.high is None:
        return (f.canon,)
    low, _, high = f.canon.partition("-")
    return (low, high)


def name_runs(p: Prepared, i: int, j: int, known: Names) -> list[tuple[int, int]]:
    """Runs of capitalised tokens in ``[i, j)`` that read as names.

    A sentence-initial capital is a name if the word is capitalised mid-sentence
    somewhere, or never written in lower case in either text: "Rollo" and "Smith"
    are names, "Water" in "Water boils…" against "…water boils…" is not.
    """
    runs: list[tuple[int, int]] = []
    start = -1
    for x in range(i, j):
        if _is_name(p, x, known):
            if start < 0 or p.clause[x] != p.clause[x - 1]:
                if start >= 0:
                    runs.append((start, x))
                start = x
        elif start >= 0:
            runs.append((start, x))
            start = -1
    if start >= 0:
        runs.append((start, j))
    return runs


def _is_name(p: Prepared, x: int, known: Names) -> bool:
    ch = p.text[p.starts[x]]
    key = p.keys[x]
    if not ch.isupper() or key is None or key.startswith("#") or p.low[x] in _NOT_NAMES:
        return False
    if p.sent[x] in p.shouting:
        return False  # a headline in capitals says nothing by its capitals
    if x > 0 and p.sent[x - 1] == p.sent[x]:
        return True
    capitalised, lowercase = known
    return key in capitalised or key not in lowercase


def check_names(a: Alignment, known: Names) -> list[Finding]:
    """A name of the sentence must be in the region, in its slot.

    Where the sentence's neighbouring words put another name in the passage (and not
    this one) it is a swap: contradicted. A name the region lacks, with no other name
    in its slot, is ``missing``.
    """
    c, p = a.claim, a.passage
    claim_runs = name_runs(c, 0, len(c.keys), known)
    if not claim_runs:
        return []
    if len(claim_runs) > _MAX_ITEMS:
        return [_missing(f"name:{len(claim_runs)} names, too many to check")]
    region_keys = {k for k in p.keys[a.t0 : a.t1] if k}
    region_runs = name_runs(p, a.t0, a.t1, known)
    run_of = {z: r for r in region_runs for z in range(r[0], r[1])}
    out: list[Finding] = []
    for s, e in claim_runs:
        if _common_opening(a, s, e, known):
            continue  # "People are …" from "Men are …": a word, left to the accounting
        keys = {k for k in c.keys[s:e] if k}
        name = c.text[c.starts[s] : c.ends[e - 1]]
        slot_best: dict[tuple[int, int], int] = {}
        for z, w in anchors(a, s, e).items():
            if (r := run_of.get(z)) is not None and w > slot_best.get(r, 0):
                slot_best[r] = w
        at_slot = [(w, r) for r, w in slot_best.items()]
        # Own: the passage run holds all of the name ("Harold" in "King Harold II").
        own_score = max((w for w, r in at_slot if keys <= _run_keys(p, r)), default=0)
        rivals = [r for w, r in sorted(at_slot, key=lambda x: -x[0])
                  if w > own_score and not keys <= _run_keys(p, r)]  # fmt: skip
        if rivals and max(w for w, _ in at_slot) >= _MIN_SLOT_SCORE:
            out.append(_contra(f"name:{name} vs {_run_text(p, rivals[0])}"))
        elif not keys <= region_keys:
            out.append(_missing(f"name:{name} not in passage"))
    return out


def _common_opening(a: Alignment, s: int, e: int, known: Names) -> bool:
    """A one-word run that opens its sentence and reads as a name only because neither
    text writes it in lower case ("People", "Kids", "Weights"), when a window word
    says it as a common word (``lexicon.licenses``: "men" says "people", "children"
    says "kids"). The word is then the accounting's to check, like any other word: a
    name is never said by another word ("London" by "Paris"), a capital mid-sentence
    stays a name, and so does a word no window word licenses."""
    c, p = a.claim, a.passage
    if e - s != 1 or (s > 0 and c.sent[s - 1] == c.sent[s]) or c.keys[s] in known[0]:
        return False
    word = c.low[s]
    return any(
        (key := p.keys[z]) and not key.startswith("#")
        and lexicon.licenses(p.low[z], word)
        for z in range(a.t0, a.t1)
    )


def _run_keys(p: Prepared, run: tuple[int, int]) -> set[str]:
    return {k for k in p.keys[run[0] : run[1]] if k}


def _run_text(p: Prepared, run: tuple[int, int]) -> str:
    return p.text[p.starts[run[0]] : p.ends[run[1] - 1]]


_CHECKERS = {"figure": "figures", "year": "years", "name": "names"}  # also the rules' names


def _finding(effect: Effect, reason: str) -> Finding:
    kind = reason.split(":", 1)[0]
    gate: Gate = "figures" if kind == "figure" else "contradiction"
    return Finding(gate, effect, _CHECKERS[kind], reason, _CHECKERS[kind])


def _contra(reason: str) -> Finding:
    return _finding("contradicts", reason)


def _missing(reason: str) -> Finding:
    return _finding("missing", reason)

"""Figures with their qualifiers, extracted by small linear regexes.

A figure is a number as a reader understands it: ``$1.2 billion`` is one figure with a
currency and a magnitude, ``2–5 mg`` is a range with a unit, ``about 500`` carries its
approximation, and a figure in a sentence that names a year carries that year (a 2026
figure quoted as the 2027 figure is wrong). Values are compared as numbers, never as
substrings, so ``412500`` never matches inside ``14125001`` and ``1,050,000`` equals
``1050000``.

>>> [f.canon for f in extract_figures("Revenue was $1.2 billion in 2026, up 5%.")]
['1200000000', '2026', '5']
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from typing import Literal

from ..text.english import SCALES, cardinals
from ..text.fold import translate
from ..text.sentences import sentence_ranges

__all__ = ["Figure", "canon_number", "extract_figures", "same_figure"]

FigureKind = Literal["number", "year", "ordinal"]


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure in a text; ``start``/``end`` are offsets in that text."""

    text: str
    start: int
    end: int
    value: float | None  # magnitude applied; None for unparsable forms like "1.5.3"
    canon: str  # canonical value ("1050000", "1.5", "1990s", "1.5.3")
    kind: FigureKind = "number"
    high: float | None = None  # upper end of a range
    unit: str | None = None
    currency: str | None = None
    magnitude: str | None = None
    qualifier: str | None = None  # "approx" | "min" | "max"
    qualifier_text: str | None = None
    year: str | None = None  # the year qualifying a non-year figure in its sentence


_FRACTIONS = "\u00bd\u00bc\u00be\u2153\u2154\u215b\u215c\u215d\u215e"
# The lookbehind keeps a match from starting inside a word or a longer number, which is
# also what makes every start position cheap: no quadratic rescans of digit runs.
_NUM = re.compile(
    r"(?<![\w.,])(?:\d+(?:[.,]\d+)*(?:[eE][-+]?\d+(?!\w))?["
    + _FRACTIONS
    + r"]?|["
    + _FRACTIONS
    + r"])"
)
_LETTERS = re.compile(r"[^\W\d_]+")
_WORD_END = re.compile(r"\w+$")
_POWER = re.compile(r"(?:\^|\*\*)([-]?\d{1,3})|([\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)")
_TIMES_TEN = re.compile(r" ?[x\u00d7*] ?10 ?(?:\^|\*\*) ?(-?\d{1,3})")
_SUPER_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
_SUPERS = frozenset(_SUPER_DIGITS)
_SUPERSCRIPT = str.maketrans(_SUPER_DIGITS, "0123456789")

_MAGNITUDES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "mio": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12,
}  # fmt: skip
_MAG_WORD = re.compile(r" ?(thousand|million|billion|trillion|mio|bn|mn|tn|[kmb])(?!\w)", re.I)
_UNIT_CANON = {
    "percent": "%", "per cent": "%", "pct": "%", "percentage points": "pp",
    "percentage point": "pp", "degrees celsius": "°c", "degrees fahrenheit": "°f",
    "° c": "°c", "° f": "°f", "tonnes": "t", "tonne": "t", "tons": "t", "ton": "t",
    "kilograms": "kg", "kilogram": "kg", "grams": "g", "gram": "g", "milligrams": "mg",
    "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km",
    "metres": "m", "meters": "m", "metre": "m", "meter": "m", "miles": "mi", "mile": "mi",
    "litres": "l", "liters": "l", "litre": "l", "liter": "l", "years": "year",
    "months": "month", "weeks": "week", "days": "day", "hours": "hour", "minutes": "minute",
    "seconds": "second", "dollars": "$", "dollar": "$", "euros": "€", "euro": "€",
    "km²": "km2", "m²": "m2", "cm²": "cm2", "m³": "m3", "cm³": "cm3", "mg/m³": "mg/m3",
    "µg/m³": "µg/m3", "μg/m3": "µg/m3", "μg/m³": "µg/m3",
}  # fmt: skip
_UNITS = sorted(
    set(_UNIT_CANON)
    | set(
        "% ‰ ppm ppb ppt mg/m3 µg/m3 mg/kg mg/l mg/dl mmol/l °c °f ° k° km/h mph m/s "
        "kwh mwh gwh twh kw mw gw w v mv hz khz mhz ghz kg g mg µg mcg km cm mm nm m mi ft "
        "in lb lbs oz l ml dl t mb gb tb kb x year month week day hour minute second "
        "yr yrs h min s ha acres acre km2 m2 sq mmhg bpm iu".split()
    ),
    key=len,
    reverse=True,
)
# Attached ("5km") any unit reads as a unit; after a space, words like "in" do not.
_UNIT = re.compile(r"(" + "|".join(re.escape(u) for u in _UNITS) + r")(?![\w/])", re.I)
_SPACED_NOT_UNITS = frozenset(("in", "x", "s", "h", "t", "k°", "ft", "min", "sq"))
_ATTACHED_UNITS = frozenset(u for u in _UNITS if u.isalpha())
_ORDINALS = frozenset(("st", "nd", "rd", "th"))
_CURRENCY = re.compile(
    r"(US\$|A\$|C\$|HK\$|NZ\$|\$|€|£|¥|₹|₽|₩|usd|eur|gbp|jpy|chf|cny|inr) ?$", re.I
)
_CURRENCY_CANON = {"us$": "$", "usd": "$", "eur": "€", "gbp": "£", "jpy": "¥", "inr": "₹"}
_QUALIFIERS = {
    "about": "approx", "approximately": "approx", "approx.": "approx", "approx": "approx",
    "around": "approx", "roughly": "approx", "circa": "approx", "ca.": "approx",
    "c.": "approx", "nearly": "approx", "almost": "approx", "some": "approx",
    "an estimated": "approx", "estimated": "approx", "~": "approx", "≈": "approx",
    "more than": "min", "over": "min", "above": "min", "greater than": "min",
    "exceeding": "min", "in excess of": "min", "at least": "min", "no less than": "min",
    ">": "min", ">=": "min", "≥": "min", "less than": "max", "fewer than": "max",
    "under": "max", "below": "max", "at most": "max", "up to": "max",
    "no more than": "max", "<": "max", "<=": "max", "≤": "max",
}  # fmt: skip
_LONGEST_FIRST = sorted(_QUALIFIERS, key=len, reverse=True)
_QUALIFIER = re.compile(
    r"(?:(?<![\w.])("
    + "|".join(re.escape(q) for q in _LONGEST_FIRST if q[0].isalpha())
    + r")|("
    + "|".join(re.escape(q) for q in _LONGEST_FIRST if not q[0].isalpha())
    + r")) ?$",
    re.I,
)
_WORD_VALUES = {w: i for i, w in enumerate(cardinals("zero", "nineteen"))}
_WORD_VALUES.update({w: 10 * (i + 2) for i, w in enumerate(cardinals("twenty", "ninety"))})
_SCALES = SCALES
NUMBER_WORDS = _NUMWORD = "|".join(sorted(list(_WORD_VALUES) + list(_SCALES) + ["dozen"], key=len, reverse=True))
# Separators are mandatory between words, so the repetition cannot backtrack badly.
_WORDS = re.compile(
    # The lookahead on first letters lets most positions fail before the alternation.
    r"(?<![\w-])(?=[abdefhmnostzABDEFHMNOSTZ])(?:a |an )?(?:"
    + _NUMWORD
    + r")(?:(?: |-)(?:"
    + _NUMWORD
    + r"))*(?![\w-])",
    re.I,
)
_RANGE_GAP = re.compile(r" ?(?:-|to|through|until|and) ?$", re.I)
_BETWEEN = re.compile(r"(?:between|from) ?$", re.I)


def canon_number(value: float) -> str:
    """Canonical text of a number: integers without a point, others to 12 digits."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".12g")


def _parse_digits(raw: str) -> float | None:
    """Parse ``1,050,000``, ``1.000,5``, ``1,000.5``, ``1.5``, ``1e6``; None if ambiguous."""
    mantissa, _, exp = raw.replace("E", "e").partition("e")
    frac = 0.0
    if mantissa and mantissa[-1] in _FRACTIONS:
        frac = unicodedata.numeric(mantissa[-1])
        mantissa = mantissa[:-1]
        if not mantissa:
            return frac
    dots, commas = mantissa.count("."), mantissa.count(",")
    if dots and commas:
        # The later separator is the decimal one: 1,000.5 and 1.000,5.
        dec = "." if mantissa.rfind(".") > mantissa.rfind(",") else ","
        thou = "," if dec == "." else "."
        if mantissa.count(dec) > 1:
            return None
        int_part, frac_part = mantissa.split(dec)
        if not _grouped(int_part, thou):
            return None
        mantissa = int_part.replace(thou, "") + "." + frac_part
    elif commas:
        if _grouped(mantissa, ","):
            mantissa = mantissa.replace(",", "")
        elif commas == 1:
            mantissa = mantissa.replace(",", ".")  # European decimal comma: 1,5
        else:
            return None
    elif dots > 1:
        if not _grouped(mantissa, "."):
            return None  # a version or a section number: "1.5.3"
        mantissa = mantissa.replace(".", "")
    try:
        value = float(mantissa) + frac
        if exp:
            value *= 10.0 ** int(exp)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _power(base: float, exp: int) -> float | None:
    try:
        value = float(base) ** exp
    except (OverflowError, ZeroDivisionError):
        return None
    return value if math.isfinite(value) else None


def _grouped(text: str, sep: str) -> bool:
    groups = text.split(sep)
    return 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]) and len(groups) > 1


_LARGEST = 10**308


def _words_value(words: str) -> float | None:
    total, current = 0, 0
    for w in re.split(r"[ -]", words.lower()):
        if w in ("a", "an"):
            current = max(current, 1)
        elif w in _WORD_VALUES:
            current += _WORD_VALUES[w]
        elif w == "dozen":
            current = max(current, 1) * 12
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in _SCALES:
            total += max(current, 1) * _SCALES[w]
            current = 0
        if total + current > _LARGEST:  # "hundred hundred hundred…": no float holds it
            return None
    return float(total + current)


def extract_figures(
    text: str, *, sentences: list[tuple[int, int]] | None = None
) -> list[Figure]:
    """All figures of ``text`` in order, with units, ranges, qualifiers and year qualifiers.

    ``sentences`` (``sentence_ranges(text)``) may be passed by a caller that has them.
    """
    t = translate(text)
    found = [f for f in _digit_figures(t) if f is not None]
    found.extend(_word_figures(t, found))
    found.sort(key=lambda f: f.start)
    found = _merge_ranges(t, found)
    return _qualify_years(t, found, sentences)


def _digit_figures(t: str) -> list[Figure | None]:
    out: list[Figure | None] = []
    last_end = 0
    for m in _NUM.finditer(t):
        s, e = m.span()
        if s < last_end:
            continue  # inside the previous figure ("10^6", "3×10^-2")
        raw = m.group()
        if s >= 2 and t[s - 1] == "-" and t[s - 2].isalpha():
            # "COVID-19", "F-35", "SARS-CoV-2" are names, not figures ("mid-1990s" is).
            w = _WORD_END.search(t, max(0, s - 12), s - 1)
            if w and any(c.isupper() for c in w.group()):
                continue
        value = _parse_digits(raw)
        kind: FigureKind = "number"
        unit = magnitude = currency = None
        end = e
        suffix = None if t[e : e + 1] in _SUPERS else _LETTERS.match(t, e)
        if suffix:
            suf = suffix.group().lower()
            if suf in _ORDINALS and raw.isdigit():
                kind, end = "ordinal", suffix.end()
            elif suf == "s" and len(raw) == 4 and raw.isdigit():
                kind, unit, end = "year", "s", suffix.end()
            elif suf in _MAGNITUDES and (
                suf not in ("m", "b") or _CURRENCY.search(t, max(0, s - 4), s)
            ):  # "$5m" is five million, "5m" five metres
                magnitude, end = suf, suffix.end()
            elif suf in _ATTACHED_UNITS and not (len(suf) == 1 and suffix.group().isupper()):
                unit, end = _UNIT_CANON.get(suf, suf), suffix.end()
            else:
                continue  # "3D", "5G", "mp3": an identifier, not a figure
        if value is not None:
            if (p := _POWER.match(t, end)) is not None:
                exp = p.group(1) or (p.group(2) or "").translate(_SUPERSCRIPT)
                value, end = _power(value, int(exp)), p.end()
            elif (p := _TIMES_TEN.match(t, end)) is not None:
                value, end = value * 10.0 ** int(p.group(1)), p.end()
        negative = s >= 1 and t[s - 1] == "-" and (s == 1 or not t[s - 2].isalnum())
        if negative:
            s -= 1
            value = -value if value is not None else None
        pre = t[max(0, s - 24) : s]
        if (c := _CURRENCY.search(pre)) is not None:
            currency = _CURRENCY_CANON.get(c.group(1).lower(), c.group(1).lower())
            s -= len(c.group())
            pre = pre[: len(pre) - len(c.group())]
        if magnitude is None and (mg := _MAG_WORD.match(t, end)) is not None:
            word = mg.group(1).lower()
            if len(word) > 1 or currency:  # a bare "m" after a number is metres
                magnitude, end = word, mg.end()
        if unit is None and (u := _match_unit(t, end)) is not None:
            unit, end = u
            if unit in ("$", "€"):
                currency, unit = unit, None
        last_end = end
        out.append(_finish(t, s, end, raw, value, kind, unit, currency, magnitude, pre))
    return out


def _match_unit(t: str, pos: int) -> tuple[str, int] | None:
    spaced = t.startswith(" ", pos)
    u = _UNIT.match(t, pos + 1 if spaced else pos)
    if u is None:
        return None
    word = u.group(1).lower()
    if spaced and word in _SPACED_NOT_UNITS:
        return None
    return _UNIT_CANON.get(word, word), u.end()


def _finish(
    t: str, s: int, end: int, raw: str, value: float | None, kind: FigureKind,
    unit: str | None, currency: str | None, magnitude: str | None, pre: str,
) -> Figure:  # fmt: skip
    qualifier = qualifier_text = None
    if (q := _QUALIFIER.search(pre)) is not None:
        qualifier_text = (q.group(1) or q.group(2)).lower()
        qualifier = _QUALIFIERS.get(qualifier_text)
        s -= len(q.group())
    if value is not None and magnitude:
        value *= _MAGNITUDES[magnitude]
    if kind == "number" and raw.isdigit() and len(raw) == 4 and 1000 <= int(raw) <= 2199:
        if not (unit or currency or magnitude):
            kind = "year"
    if kind == "year":
        canon = raw + ("s" if unit == "s" else "")
    elif value is None:
        canon = t[s:end] if raw.isdigit() else raw  # "10^400" overflowed: keep the text
    else:
        canon = canon_number(value)
    return Figure(
        t[s:end], s, end, value, canon, kind, None, unit, currency, magnitude, qualifier,
        qualifier_text,
    )


def _word_figures(t: str, digits: list[Figure]) -> list[Figure]:
    out: list[Figure] = []
    starts = [f.start for f in digits]
    for m in _WORDS.finditer(t):
        words = m.group().lower()
        core = words.removeprefix("a ").removeprefix("an ")
        if core in ("one", "hundred", "thousand", "dozen") and core == words:
            continue  # "one" is mostly a pronoun; bare scale words are not counts
        if core == words and core in _SCALES:
            continue
        value = _words_value(words)
        if value is None:
            continue
        s, e = m.span()
        k = bisect_right(starts, s) - 1
        if k >= 0 and s < digits[k].end:
            continue  # "5 million": the digit figure already took the magnitude word
        unit = None
        end = e
        if (u := _match_unit(t, e)) is not None:
            unit, end = u
        pre = t[max(0, s - 24) : s]
        out.append(_finish(t, s, end, core, value, "number", unit, None, None, pre))
    return out


def _merge_ranges(t: str, figs: list[Figure]) -> list[Figure]:
    out: list[Figure] = []
    i = 0
    while i < len(figs):
        a = figs[i]
        if i + 1 < len(figs):
            b = figs[i + 1]
            gap = t[a.end : b.start]
            short_year = a.kind == "year" and gap == "-" and (b.value or 100) < 100  # 2019-20
            if (
                len(gap) <= 9
                and _RANGE_GAP.fullmatch(gap)
                and (a.kind == b.kind or short_year)
                and a.value is not None
                and b.value is not None
            ):
                joined = gap.strip().lower()
                between = _BETWEEN.search(t, max(0, a.start - 9), a.start) is not None
                if joined != "and" or between:
                    out.append(_range(t, a, b))
                    i += 2
                    continue
        out.append(a)
        i += 1
    return out


def _range(t: str, a: Figure, b: Figure) -> Figure:
    """``a``-``b`` as one figure; a magnitude or unit written once applies to both."""
    assert a.value is not None and b.value is not None
    low, high = a.value, b.value
    if a.kind == "year":
        if high < 100 and low >= 1000:
            high = low - low % 100 + high  # 2019-20
        canon = f"{a.canon}-{canon_number(high)}"
    else:
        if b.magnitude and not a.magnitude:
            low *= _MAGNITUDES[b.magnitude]  # "$2-5 million"
        canon = f"{canon_number(low)}-{canon_number(high)}"
    return replace(
        a,
        text=t[a.start : b.end],
        end=b.end,
        value=low,
        high=high,
        canon=canon,
        unit=a.unit or b.unit,
        currency=a.currency or b.currency,
        magnitude=a.magnitude or b.magnitude,
    )


_CLAUSE = re.compile(r"[,;:()]")


def _qualify_years(
    t: str, figs: list[Figure], spans: list[tuple[int, int]] | None
) -> list[Figure]:
    """Give each non-year figure the year of its clause, else the nearest one before it."""
    years = [f for f in figs if f.kind == "year"]
    if not years or len(years) == len(figs):
        return figs
    year_starts = [y.start for y in years]
    if spans is None:
        spans = sentence_ranges(t)
    sent_starts = [a for a, _ in spans]
    out: list[Figure] = []
    for f in figs:
        if f.kind == "year":
            out.append(f)
            continue
        k = bisect_right(sent_starts, f.start) - 1
        lo, hi = spans[k] if k >= 0 else (f.start, f.end)
        a, b = bisect_left(year_starts, lo), bisect_left(year_starts, hi)
        mid = bisect_left(year_starts, f.start, a, b)
        # The nearest few on each side only: a "sentence" with thousands of years is
        # not prose, and this keeps the work linear.
        near = years[max(a, mid - 4) : min(b, mid + 4)]
        best: Figure | None = None
        if near:
            same_clause = [
                y
                for y in near
                if not _CLAUSE.search(t, min(y.end, f.end), max(y.start, f.start))
            ]
            pool = same_clause or [y for y in near if y.end <= f.start] or near
            best = min(pool, key=lambda y: abs(y.start - f.start))
        out.append(replace(f, year=best.canon if best else None))
    return out


def same_figure(claim: Figure, other: Figure) -> bool:
    """Same value (and range) with compatible unit, currency and kind."""
    if claim.kind != other.kind and "ordinal" in (claim.kind, other.kind):
        return False
    if claim.value is None or other.value is None:
        return claim.canon == other.canon
    tol = 0.05 if claim.qualifier == "approx" and other.qualifier != "approx" else 1e-9
    if not math.isclose(claim.value, other.value, rel_tol=tol, abs_tol=1e-12):
        return False
    if (claim.high is None) != (other.high is None):
        return False
    if claim.high is not None and other.high is not None:
        if not math.isclose(claim.high, other.high, rel_tol=tol, abs_tol=1e-12):
            return False
    if claim.unit != other.unit and (claim.unit and other.unit or "%" in (claim.unit, other.unit)):
        return False
    if claim.currency and other.currency and claim.currency != other.currency:
        return False
    return True

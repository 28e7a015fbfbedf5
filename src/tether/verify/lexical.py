"""The lexical layer: tokens, content keys and verbatim matching.

A text is prepared once (``prepare``, cached by the string itself) into parallel token
arrays whose offsets are offsets in the original string. Content keys are lower-cased,
lightly stemmed words with stop words removed (both from ``tether.text.terms``);
figures become one key for their value (``#1050000`` for "1,050,000" and "1.05 million" alike), so coverage never confuses
``1.5`` with ``15``.

>>> p = prepare("The Normans were in Normandy. They spoke French.")
>>> [p.keys[i] for i in range(len(p.keys)) if p.keys[i]]
['norman', 'normandy', 'spok', 'french']
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache

from ..text.english import NUMBER_WORDS as _NUMBER_WORDS
from ..text.fold import Collapsed, collapse, fold, translate
from ..text.sentences import sentence_ranges
from ..text.terms import STOPWORDS, stem
from . import lexicon
from .figures import NUMBER_WORDS, Figure, canon_number, extract_figures

__all__ = [
    "Prepared",
    "clear_cache",
    "figure_key",
    "find_verbatim",
    "prepare",
    "prepare_passage",
    "verbatim_form",
]

# Numbers (with separators), words with inner apostrophes ("don't", "rollo's").
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*\w*|[^\W\d_]\w*(?:'\w+)*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Punctuation that ends a clause; quotes (folded to "'") count unless inside a word.
_CLAUSE_MARK = re.compile(r"[,;:()\[\]]| -+ |(?<!\w)'|'(?!\w)")


class Prepared:
    """A text tokenised once: parallel arrays indexed by token number."""

    __slots__ = (
        "text", "trans", "fold", "low", "keys", "starts", "ends", "sent", "clause",
        "sentences", "sent_tokens", "sent_keys", "index", "figures", "_collapsed",
        "key_set", "sent_starts", "_caps", "_lower", "_shout", "_fig_starts", "shallow",
    )  # fmt: skip

    def __init__(self, text: str) -> None:
        self.text = text
        self.trans = translate(text)
        self.fold = fold(self.trans)
        sentences = sentence_ranges(text)
        self.figures: list[Figure] = (
            extract_figures(text, sentences=sentences) if _has_number(self.fold) else []
        )
        self.sentences = _bounded(sentences, self.fold)
        self.sent_starts = [a for a, _ in self.sentences]
        self._collapsed: Collapsed | None = None
        self._caps: frozenset[str] | None = None
        self._lower: frozenset[str] | None = None
        self._shout: frozenset[int] | None = None
        self._fig_starts: list[int] | None = None
        # verify.shallow's reading of the text, made on first use.
        self.shallow: object | None = None
        self._tokenise()

    def _tokenise(self) -> None:
        folded = self.fold
        # Whole-list passes (C-level bisects, a cached key per word) rather than one
        # Python loop with many branches: tokenising is most of the cost of a check.
        ms = list(_TOKEN.finditer(folded))
        low = [m.group() for m in ms]
        starts = [m.start() for m in ms]
        ends = [m.end() for m in ms]
        keys = [_word_key(w) for w in low]
        if not folded.isascii() and _CJK.search(folded):
            low, keys, starts, ends = _split_cjk(low, keys, starts, ends)
        self._figure_keys(low, keys, starts)
        sent_ends = [e for _, e in self.sentences]
        last = max(len(sent_ends) - 1, 0)
        sent = [min(bisect_right(sent_ends, x), last) for x in starts]
        # A clause ends at a sentence end or at a mark between two tokens ("1,000" has
        # a comma inside a token, which does not count).
        gaps = []
        for m in _CLAUSE_MARK.finditer(folded):
            before = bisect_right(starts, m.start()) - 1
            if before < 0 or m.start() >= ends[before]:
                if m.group() == "," and _series_comma(folded, low, starts, ends, before):
                    continue  # "black, pink and white uniforms": one phrase
                if m.group() == "'" and _plural_possessive(folded, m.start(), self.sentences):
                    continue  # "the boys' dog": one phrase
                gaps.append(m.start())
        clause = [i + bisect_left(gaps, x) for i, x in zip(sent, starts)]
        self.low, self.keys, self.starts, self.ends = low, keys, starts, ends
        self.sent, self.clause = sent, clause
        # Per-sentence token ranges, key sets and an inverted index for windowing.
        sent_tokens: list[tuple[int, int]] = []
        sent_keys: list[frozenset[str]] = []
        index: dict[str, list[int]] = {}
        t = 0
        for i in range(len(self.sentences)):
            t0 = t
            t = bisect_right(sent, i, t0)
            sent_tokens.append((t0, t))
            ks = frozenset(key for key in keys[t0:t] if key)
            sent_keys.append(ks)
            for key in ks:
                index.setdefault(key, []).append(i)
        self.sent_tokens, self.sent_keys, self.index = sent_tokens, sent_keys, index
        self.key_set = frozenset(k for k in keys if k)

    def _figure_keys(self, low: list[str], keys: list[str | None], starts: list[int]) -> None:
        """Inside a figure the first number carries its value (the second, the upper end
        of a range); the rest (currency, magnitude, unit words) belongs to the figure."""
        n = len(starts)
        for fig in self.figures:
            state = 0
            j = bisect_left(starts, fig.start)
            while j < n and starts[j] < fig.end:
                word = low[j]
                key: str | None = None
                if word[0].isdigit() or word in _NUMBER_WORDS or word[0] in _FRACTIONS:
                    if state == 0:
                        key = figure_key(fig)
                    elif state == 1 and fig.high is not None:
                        key = figure_key(fig, high=True)
                    state += 1
                keys[j] = key
                j += 1

    @property
    def collapsed(self) -> Collapsed:
        if self._collapsed is None:
            self._collapsed = collapse(self.fold)
        return self._collapsed

    @property
    def capitalised(self) -> frozenset[str]:
        """Keys of words written with a capital somewhere other than a sentence start."""
        if self._caps is None:
            keys, starts, text, sent = self.keys, self.starts, self.text, self.sent
            self._caps = frozenset(
                k
                for x in range(1, len(keys))
                if (k := keys[x]) and sent[x - 1] == sent[x] and text[starts[x]].isupper()
            )
        return self._caps

    @property
    def lowercase(self) -> frozenset[str]:
        """Keys of words written in lower case somewhere (so: common words, not names)."""
        if self._lower is None:
            keys, starts, text = self.keys, self.starts, self.text
            self._lower = frozenset(
                k for x in range(len(keys)) if (k := keys[x]) and text[starts[x]].islower()
            )
        return self._lower

    @property
    def shouting(self) -> frozenset[int]:
        """Sentences written mostly in capitals (headlines): capitals there mean nothing."""
        if self._shout is None:
            out = set()
            for i, (t0, t1) in enumerate(self.sent_tokens):
                words = [
                    self.text[self.starts[x] : self.ends[x]] for x in range(t0, t1) if self.keys[x]
                ]
                caps = sum(1 for w in words if len(w) > 1 and w.isupper())
                if caps * 2 > len(words) >= 2:
                    out.add(i)
            self._shout = frozenset(out)
        return self._shout

    def token_range(self, start: int, end: int) -> tuple[int, int]:
        """Token indices ``[i, j)`` lying within characters ``[start, end)``."""
        return bisect_left(self.starts, start), bisect_left(self.starts, end)

    def figures_in(self, start: int, end: int) -> list[Figure]:
        figs = self.figures
        if not figs:
            return []
        if self._fig_starts is None:
            self._fig_starts = [f.start for f in figs]
        return figs[bisect_left(self._fig_starts, start) : bisect_left(self._fig_starts, end)]

    def sentence_at(self, pos: int) -> int:
        return max(0, bisect_right(self.sent_starts, pos) - 1)


# A "sentence" longer than this (a page dump, a table, a list without stops) is cut at
# spaces into pieces of about _PIECE characters, so that a window stays local.
_LONG, _PIECE = 600, 400


def _bounded(spans: list[tuple[int, int]], folded: str) -> list[tuple[int, int]]:
    if all(e - s <= _LONG for s, e in spans):
        return spans
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while e - s > _LONG:
            cut = folded.rfind(" ", s + _PIECE // 2, s + _PIECE)
            if cut < 0:
                cut = s + _PIECE
            out.append((s, cut))
            s = cut
            while s < e and folded[s] == " ":
                s += 1
        if e > s:
            out.append((s, e))
    return out


Tokens = tuple[list[str], list[str | None], list[int], list[int]]

_SERIES_JOINS = frozenset(("and", "or"))
# A coordinated series longer than this is a list, not the modifiers of one noun.
_SERIES_WORDS = 6


def _series_comma(folded: str, low: list[str], starts: list[int], ends: list[int], i: int) -> bool:
    """The comma after token ``i`` joins the modifiers of one noun and ends no clause:
    "black, pink and white uniforms", "a long, narrow, and dusty road". The words from ``i``
    on are adjectives (WordNet) separated by commas, the last joined by "and"/"or",
    and a noun follows the last one. "The flag is red, white and blue." (no noun after
    the series) and "the shirt is black, white dogs bark" (no "and") keep the comma.
    """
    n = len(low)

    def gap(x: int) -> str:
        return folded[ends[x] : starts[x + 1]].strip()

    if i < 0 or i + 1 >= n:
        return False
    # The shape first, by strings alone (most commas fail it); WordNet only then.
    members = [i]
    if gap(i) == "," and i > 0 and gap(i - 1) == "," and low[i + 1] in _SERIES_JOINS:
        members.insert(0, i - 1)  # the serial comma: "red, gold, and white"
    x = i
    while x + 1 < n and low[x + 1] not in _SERIES_JOINS:
        if gap(x) != "," or len(members) > _SERIES_WORDS:
            return False
        x += 1
        members.append(x)  # another member of the series
    if len(members) < 2 or x + 3 >= n or gap(x) not in ("", ",") or gap(x + 1) or gap(x + 2):
        return False
    last, noun = x + 2, x + 3  # "… and white uniforms": the last member, then its noun
    return all(_modifier(low[m]) for m in (*members, last)) and _noun(low[noun])


_OPENING_QUOTE = re.compile(r"(?<!\w)'(?=\w)")
_CLOSING_QUOTE = re.compile(r"(?<=\w)'(?!\w)")


def _plural_possessive(folded: str, at: int, sentences: list[tuple[int, int]]) -> bool:
    """The apostrophe at ``at`` marks a plural possessive ("the boys' dog", "the
    nurses' union"), not a closing quote: it follows an "s", a word follows it, and no
    quote opened earlier in its sentence is still open."""
    if at == 0 or folded[at - 1] != "s" or not folded[at + 1 : at + 3].startswith(" "):
        return False
    if not folded[at + 2 : at + 3].isalpha():
        return False
    i = bisect_right(sentences, (at, len(folded))) - 1
    start = sentences[i][0] if i >= 0 else 0
    before = folded[start:at]
    return len(_OPENING_QUOTE.findall(before)) <= len(_CLOSING_QUOTE.findall(before))


@lru_cache(maxsize=65536)
def _modifier(word: str) -> bool:
    return word.isalpha() and bool(lexicon.lemmas(word, "a"))


@lru_cache(maxsize=65536)
def _noun(word: str) -> bool:
    return word.isalpha() and bool(lexicon.lemmas(word, "n"))


def _split_cjk(
    low: list[str], keys: list[str | None], starts: list[int], ends: list[int]
) -> Tokens:
    """Scripts without spaces: runs of Han/kana become character bigrams."""
    out: Tokens = ([], [], [], [])
    for word, key, s, e in zip(low, keys, starts, ends):
        if not _CJK.search(word):
            _push(out, word, key, s, e)
            continue
        pos = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > pos:
                part = word[pos : run.start()]
                _push(out, part, part, s + pos, s + run.start())
            chars, a = run.group(), s + run.start()
            if len(chars) == 1:
                _push(out, chars, chars, a, a + 1)
            for j in range(len(chars) - 1):
                _push(out, chars[j : j + 2], chars[j : j + 2], a + j, a + j + 2)
            pos = run.end()
        if pos < len(word):
            _push(out, word[pos:], word[pos:], s + pos, e)
    return out


def _push(out: Tokens, word: str, key: str | None, s: int, e: int) -> None:
    out[0].append(word)
    out[1].append(key)
    out[2].append(s)
    out[3].append(e)


_FRACTIONS = "\u00bd\u00bc\u00be\u2153\u2154\u215b\u215c\u215d\u215e"
_DIGIT = re.compile(r"\d|[" + _FRACTIONS + r"]|\b(?:" + NUMBER_WORDS + ")", re.I)


def figure_key(fig: Figure, *, high: bool = False) -> str:
    """Coverage key of a figure's value (or a range's upper end)."""
    if fig.kind == "year":
        return "#" + (fig.canon.split("-")[1] if high else fig.canon.split("-")[0])
    value = fig.high if high else fig.value
    if value is None:
        return "#" + fig.canon
    return "#" + canon_number(value)


def _has_number(folded: str) -> bool:
    return _DIGIT.search(folded) is not None


@lru_cache(maxsize=65536)
def _word_key(word: str) -> str | None:
    """Content key of a lower-case word, or None for stop words and "n't" forms."""
    if word in STOPWORDS or word.endswith("n't"):
        return None
    if word in lexicon.verb_forms():
        # An irregular form keys as its verb ("ridden", "sung", "drawn": "riding",
        # "singing", "drawing") when it is no noun or verb of its own ("saw", "left",
        # "found" stay themselves).
        base = lexicon.irregular_base(word)
        if base is not None:
            return stem(base)
    return stem(word)


def prepare(text: str) -> Prepared:
    """Tokenise ``text`` (sentence or passage); cached by the string itself, so the
    guard's checks of every sentence against the same retrieved passages tokenise each
    passage once. Huge texts get a small cache of their own to bound memory."""
    return _prepare_small(text) if len(text) <= 100_000 else _prepare_large(text)


@lru_cache(maxsize=2048)
def _prepare_small(text: str) -> Prepared:
    return Prepared(text)


@lru_cache(maxsize=4)
def _prepare_large(text: str) -> Prepared:
    return Prepared(text)


def clear_cache() -> None:
    """Forget every prepared text (benchmarks measure cold runs with this)."""
    _prepare_small.cache_clear()
    _prepare_large.cache_clear()


prepare_passage = prepare


# Tried only from the first character of a run (the lookbehind) and never given back:
# otherwise every dot of ". . . . x" would rescan the run to the end (quadratic).
_TRAILING = re.compile(r"(?<![\s.!?\u3002\uff01\uff1f\u2026])[\s.!?\u3002\uff01\uff1f\u2026]++$")


def verbatim_form(sentence: Prepared) -> str:
    """The sentence as the verbatim test compares it: collapsed, trimmed, no final stop."""
    return _verbatim_text(sentence.collapsed.text)


@lru_cache(maxsize=4096)  # one sentence is compared with each of its candidate passages
def _verbatim_text(collapsed: str) -> str:
    return _TRAILING.sub("", collapsed.strip())


# Verbatim search stops after this many rejected candidates (adversarial repetition);
# the coverage test still runs, so giving up only costs the fast path.
_MAX_CANDIDATES = 2000


def find_verbatim(needle: str, passage: Prepared) -> tuple[int, int] | None:
    """Original ``[start, end)`` of ``needle`` in the passage on word/number boundaries."""
    if not needle:
        return None
    hay = passage.collapsed.text
    n = len(needle)
    pos = 0
    for _ in range(_MAX_CANDIDATES):
        i = hay.find(needle, pos)
        if i < 0:
            return None
        j = i + n
        if _boundary_ok(hay, i, j, needle):
            c = passage.collapsed
            return c.original(i), c.original(j - 1) + 1
        pos = i + 1
    return None


def _boundary_ok(hay: str, i: int, j: int, needle: str) -> bool:
    if needle[0].isalnum() and i > 0 and hay[i - 1].isalnum():
        return False
    if needle[-1].isalnum() and j < len(hay) and hay[j].isalnum():
        return False
    # "412.5" must not sit inside "412.55" nor "1,412.5".
    if needle[-1].isdigit() and j + 1 < len(hay) and hay[j] in ".," and hay[j + 1].isdigit():
        return False
    if needle[0].isdigit() and i >= 2 and hay[i - 1] in ".,-" and hay[i - 2].isdigit():
        return False
    return True

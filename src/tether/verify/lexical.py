"""The lexical layer: tokens, content keys, verbatim matching and coverage windows.

A text is prepared once (``prepare``, cached by the string itself) into parallel token
arrays whose offsets are offsets in the original string. Content keys are lower-cased,
lightly stemmed words with stop words removed; figures become one key for their value
(``#1050000`` for "1,050,000" and "1.05 million" alike), so coverage never confuses
``1.5`` with ``15``.

>>> p = prepare("The Normans were in Normandy. They spoke French.")
>>> [p.keys[i] for i in range(len(p.keys)) if p.keys[i]]
['norman', 'normandy', 'spoke', 'french']
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from .figures import Figure, canon_number, extract_figures
from .text import Collapsed, collapse, fold, split_sentences, translate

__all__ = [
    "STOPWORDS",
    "Prepared",
    "Window",
    "best_windows",
    "core_span",
    "figure_key",
    "find_verbatim",
    "prepare",
    "prepare_passage",
    "stem",
    "verbatim_form",
]

# Function words carry no claim on their own. Negators, quantifiers and modals are in
# the list on purpose: coverage ignores them and the polarity/quantifier/modality
# checks compare them explicitly, which is the whole point of those checks.
STOPWORDS = frozenset(
    """a an the and or but if then than that this these those there here it its it's
    of in on at to from by with for as into onto over under about above below between
    through during before after since until upon within without against among across
    is are was were be been being am do does did done doing has have had having
    will would shall should can could may might must ought need dare
    i me my mine we us our ours you your yours he him his she her hers they them
    their theirs who whom whose which what when where why how whether
    not no nor never none neither either n't cannot nothing nobody nowhere
    all some any each every most many much more less few fewer several both other
    others another such same own only just also very too so quite rather really
    again still yet already ever even however thus therefore hence furthermore
    moreover meanwhile although though because while whereas instead later today now
    currently recently finally first second third last next
    per percent cent one ones s
    always sometimes often usually rarely seldom generally mostly occasionally
    perhaps possibly probably likely unlikely potentially certainly definitely""".split()
)

# Numbers (with separators), words with inner apostrophes ("don't", "rollo's").
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*\w*|[^\W\d_]\w*(?:'\w+)*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CLAUSE_MARK = re.compile(r"[,;:()\[\]\"]| -+ ")
_ASCII_WORD = re.compile(r"[a-z]+")


def stem(word: str) -> str:
    """A light English suffix stripper; enough to meet "rode"/"riding"/"rides"."""
    if word.endswith(("'s", "'")):
        word = word.rstrip("s").rstrip("'")
    if len(word) <= 3 or not _ASCII_WORD.fullmatch(word):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    stripped = True
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("eed") and len(word) > 4:
        word = word[:-1]  # "agreed" -> "agree"
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    elif word.endswith("ly") and len(word) > 6:
        word, stripped = word[:-2], False  # "largely" -> "large" ("family" stays)
    else:
        stripped = False
    if stripped and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsze":
        return word[:-1]  # "running" -> "run", "stopped" -> "stop"
    if len(word) > 3 and word.endswith("e"):
        return word[:-1]  # "ride"/"riding", "smile"/"smiling", "agree"/"agreed"
    return word


@dataclass(frozen=True, slots=True)
class Window:
    """Consecutive sentences ``first..last`` of a passage and the claim keys they hold."""

    first: int
    last: int
    matched: frozenset[str]
    coverage: float


class Prepared:
    """A text tokenised once: parallel arrays indexed by token number."""

    __slots__ = (
        "text", "trans", "fold", "low", "keys", "starts", "ends", "sent", "clause",
        "sentences", "sent_tokens", "sent_keys", "index", "figures", "_collapsed",
        "key_set", "sent_starts", "_caps", "_lower", "_shout", "_fig_starts",
    )  # fmt: skip

    def __init__(self, text: str) -> None:
        self.text = text
        self.trans = translate(text)
        self.fold = fold(self.trans)
        self.figures: list[Figure] = extract_figures(text) if _has_number(self.fold) else []
        self.sentences = _bounded(split_sentences(text), self.fold)
        self.sent_starts = [a for a, _ in self.sentences]
        self._collapsed: Collapsed | None = None
        self._caps: frozenset[str] | None = None
        self._lower: frozenset[str] | None = None
        self._shout: frozenset[int] | None = None
        self._fig_starts: list[int] | None = None
        self._tokenise()

    def _tokenise(self) -> None:
        low: list[str] = []
        keys: list[str | None] = []
        starts: list[int] = []
        ends: list[int] = []
        sent: list[int] = []
        clause: list[int] = []
        folded = self.fold
        fig_iter = iter(self.figures)
        fig = next(fig_iter, None)
        fig_state = 0  # numeric tokens of the current figure already given a key
        sents = self.sentences
        si = 0
        clause_no = 0
        prev_end = 0
        for m in _TOKEN.finditer(folded):
            s, e = m.span()
            while si < len(sents) - 1 and s >= sents[si][1]:
                si += 1
                clause_no += 1
            if _CLAUSE_MARK.search(folded, prev_end, s):
                clause_no += 1
            prev_end = e
            word = m.group()
            while fig is not None and fig.end <= s:
                fig, fig_state = next(fig_iter, None), 0
            if fig is not None and fig.start <= s < fig.end:
                # Inside a figure the first number carries its value (the second, the
                # upper end of a range); the rest (magnitude, unit) is the figure's.
                key: str | None = None
                if word[0].isdigit() or word in _NUMBER_WORDS or word[0] in "\u00bd\u00bc\u00be":
                    if fig_state == 0:
                        key = figure_key(fig)
                    elif fig_state == 1 and fig.high is not None:
                        key = figure_key(fig, high=True)
                    fig_state += 1
                _add(low, keys, starts, ends, sent, clause, word, key, s, e, si, clause_no)
                continue
            if _CJK.search(word):
                self._cjk(word, s, si, clause_no, low, keys, starts, ends, sent, clause)
                continue
            key = None if word in STOPWORDS or _is_neg_contraction(word) else stem(word)
            _add(low, keys, starts, ends, sent, clause, word, key, s, e, si, clause_no)
        self.low, self.keys, self.starts, self.ends = low, keys, starts, ends
        self.sent, self.clause = sent, clause
        # Per-sentence token ranges, key sets and an inverted index for windowing.
        sent_tokens: list[tuple[int, int]] = []
        sent_keys: list[frozenset[str]] = []
        index: dict[str, list[int]] = {}
        t = 0
        for i in range(len(sents)):
            t0 = t
            while t < len(sent) and sent[t] == i:
                t += 1
            sent_tokens.append((t0, t))
            ks = frozenset(k for k in keys[t0:t] if k)
            sent_keys.append(ks)
            for k in ks:
                index.setdefault(k, []).append(i)
        self.sent_tokens, self.sent_keys, self.index = sent_tokens, sent_keys, index
        self.key_set = frozenset(k for k in keys if k)

    @staticmethod
    def _cjk(
        word: str, s: int, si: int, cl: int, low: list[str], keys: list[str | None],
        starts: list[int], ends: list[int], sent: list[int], clause: list[int],
    ) -> None:  # fmt: skip
        # Scripts without spaces: character bigrams are the unit of overlap.
        pos = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > pos:
                part = word[pos : run.start()]
                _add(low, keys, starts, ends, sent, clause, part, part, s + pos, s + run.start(), si, cl)
            chars = run.group()
            if len(chars) == 1:
                _add(low, keys, starts, ends, sent, clause, chars, chars, s + run.start(), s + run.end(), si, cl)
            for j in range(len(chars) - 1):
                a = s + run.start() + j
                _add(low, keys, starts, ends, sent, clause, chars[j : j + 2], chars[j : j + 2], a, a + 2, si, cl)
            pos = run.end()
        if pos < len(word):
            _add(low, keys, starts, ends, sent, clause, word[pos:], word[pos:], s + pos, s + len(word), si, cl)

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
                words = [self.text[self.starts[x] : self.ends[x]] for x in range(t0, t1) if self.keys[x]]
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


def _add(
    low: list[str], keys: list[str | None], starts: list[int], ends: list[int],
    sent: list[int], clause: list[int], word: str, key: str | None, s: int, e: int,
    si: int, cl: int,
) -> None:  # fmt: skip
    low.append(word)
    keys.append(key)
    starts.append(s)
    ends.append(e)
    sent.append(si)
    clause.append(cl)


_DIGIT = re.compile(r"\d|[\u00bd\u00bc\u00be]|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen)")


_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred thousand million billion trillion dozen""".split()
)


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


def _is_neg_contraction(word: str) -> bool:
    return word.endswith("n't")


def prepare(text: str) -> Prepared:
    """Tokenise ``text`` (sentence or passage); cached, so repeated checks are cheap."""
    return _prepare_cached(text) if len(text) <= 200_000 else Prepared(text)


@lru_cache(maxsize=1024)
def _prepare_cached(text: str) -> Prepared:
    return Prepared(text)


prepare_passage = prepare


_TRAILING = re.compile(r"[\s.!?\u3002\uff01\uff1f\u2026]+$")


def verbatim_form(sentence: Prepared) -> str:
    """The sentence as the verbatim test compares it: collapsed, trimmed, no final stop."""
    return _TRAILING.sub("", sentence.collapsed.text.strip())


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


def best_windows(
    claim_keys: frozenset[str], passage: Prepared, *, max_sentences: int = 3, limit: int = 3
) -> list[Window]:
    """The best windows of up to ``max_sentences`` consecutive sentences by coverage.

    Only sentences holding a claim key can start or end a best window, so the work is
    bounded by the occurrences of the claim's keys, not the passage length.
    """
    if not claim_keys or not passage.sentences:
        return []
    cand: set[int] = set()
    for k in claim_keys:
        cand.update(passage.index.get(k, ()))
    if not cand:
        return []
    order = sorted(cand)
    per = {i: claim_keys & passage.sent_keys[i] for i in order}
    total = len(claim_keys)
    scored: list[tuple[int, int, int, frozenset[str]]] = []
    for a, first in enumerate(order):
        acc = per[first]
        scored.append((len(acc), 0, first, acc))
        for last in order[a + 1 :]:
            if last - first >= max_sentences:
                break
            acc = acc | per[last]
            scored.append((len(acc), -(last - first), first, acc))
    scored.sort(key=lambda x: (-x[0], -x[1], x[2]))
    out: list[Window] = []
    for hits, neg_len, first, acc in scored[:limit]:
        out.append(Window(first, first - neg_len, frozenset(acc), hits / total))
    return out


def core_span(passage: Prepared, t0: int, t1: int, matched: frozenset[str]) -> tuple[int, int]:
    """Shortest token range ``[i, j)`` within ``[t0, t1)`` holding every matched key."""
    if not matched:
        return t0, t0
    need = len(matched)
    counts: dict[str, int] = {}
    have = 0
    best = (t0, t1)
    left = t0
    keys = passage.keys
    for right in range(t0, t1):
        k = keys[right]
        if k in matched:
            counts[k] = counts.get(k, 0) + 1
            if counts[k] == 1:
                have += 1
        while have == need:
            if right + 1 - left < best[1] - best[0]:
                best = (left, right + 1)
            lk = keys[left]
            if lk in matched:
                counts[lk] -= 1
                if counts[lk] == 0:
                    have -= 1
            left += 1
    return best

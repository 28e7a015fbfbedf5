"""Quote-bound answers: the model chooses passage sentences by id; Tether shows them word for word.

The prompt numbers each sentence of each retrieved passage ``[p.s]`` (passage p,
sentence s), cut with ``text.sentences`` — the splitter ingest and the guard use — so an
id stands for an exact range of the stored passage. The model replies with ids, in the
order they should be read, after at most a short lead-in, or says that the passages do
not answer. Each chosen sentence becomes a ``Draft`` of the stored text the moment its
id is complete; the guard checks it like any other draft (a choice is a proposal, not
proof). What is not a usable choice is a ``Remark``, kept in the trace and never shown:
the lead-in, the model's word that the passages do not answer, an id that is malformed,
repeated, out of range or written after that word, and text written between ids
("[1.2] ignore the rules").

When the passages hold more than ``SHORTLIST`` sentences, only the ``SHORTLIST`` that
the shipped answerability model reads as likeliest to answer are shown to the model,
under their ids in the whole passage (ADR 0071): a small model chooses better among a
few sentences than among a hundred, and reads the prompt faster. An id it was not shown
is ignored like one out of range.

A document cannot forge an id: every sentence is one line of the prompt and square
brackets in passage text reach the model as parentheses, so the only ``[p.s]`` in the
prompt are Tether's own.

    >>> from tether.records import Document, Hit, Passage
    >>> doc = Document("d", "file:///a.md", "A", "CC0", "2026-01-01", "text/markdown")
    >>> text = "Alpha weighs 5 kg. Beta weighs 7 kg."
    >>> hit = Hit(Passage("p1", "d", "v", 0, len(text), text), doc, 1.0, 0)
    >>> reader = QuoteReader(QuotePrompt.build("How heavy is Beta?", [hit]))
    >>> reader.feed("Beta: [1.")
    []
    >>> for item in reader.feed("2] [1.9] [1.2]"): print(item)
    Remark(kind='lead_in', text='Beta:', detail='')
    Draft(text='Beta weighs 7 kg.', hints=('p1',), ignored_markers=(), quoted='1.2')
    Remark(kind='ignored_id', text='[1.9]', detail='out_of_range')
    Remark(kind='ignored_id', text='[1.2]', detail='duplicate')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..records import Draft, Hit, Remark
from ..text.focus import unit_term
from ..text.sentences import sentence_spans
from .prompt import INJECTION_LINE, source_label
from .reading import qualifies, read_sentences

__all__ = ["IGNORED", "QUOTE_SYSTEM_PROMPT", "SHORTLIST", "Numbered", "QuotePrompt", "QuoteReader", "declines",
           "kept", "opening"]

QUOTE_SYSTEM_PROMPT = f"""\
You answer a question by choosing sentences from the numbered passages in the user's \
message.

{INJECTION_LINE}

Every sentence of every passage starts with its id in square brackets: [2.3] is \
passage 2, sentence 3.

Rules:
- Reply with the ids of the sentences that answer the question, in the order they \
should be read, like this: [2.3] [1.1]
- Choose as few sentences as answer the question fully, usually one or two.
- You may write a lead-in of a few words before the first id; it is never shown as \
part of the answer. Write nothing after the ids.
- Do not copy, rewrite or explain the sentences: the sentences you choose are shown \
word for word.
- If no sentence answers the question, reply: NO ANSWER, then say in one short \
sentence what is missing.

Each sentence you choose is checked against the question; a sentence that does not \
answer it is removed before anyone sees it."""

# Why an id was ignored (a ``Remark``'s ``detail``), as the trace records it.
IGNORED = {
    "malformed": "not a [passage.sentence] id",
    "duplicate": "chosen already",
    "out_of_range": "no such sentence among those the model was shown",
    "after_decline": "written after the model said the passages do not answer",
}

# What a model writes when the passages do not answer: the reply the prompt asks for,
# and the ways models word it when they forget the form.
DECLINE_PATTERNS = (
    re.compile(r"\bno answer\b", re.IGNORECASE),
    re.compile(r"\b(?:passages?|context|texts?|documents?|sentences?)\b[^.\[]{0,60}?\b"
               r"(?:do|does|did)\s*n[o']t\s+(?:answer|say|state|contain|mention|provide|"
               r"include|give|specify)", re.IGNORECASE),
    re.compile(r"\bnot\s+(?:answered|stated|mentioned|given|provided|specified)\b[^.\[]{0,30}?"
               r"\b(?:passages?|context)\b", re.IGNORECASE),
    re.compile(r"\b(?:cannot|can't|can not|unable to)\s+(?:be\s+)?(?:answer|determine|find)",
               re.IGNORECASE),
)

# A bracket longer than this holds no id list; it is text (or a malformed id).
MAX_BRACKET = 48
# The lead-in and the text between ids are kept for the trace up to this length;
# neither is ever shown, so the bound only keeps a rambling model out of the record.
KEPT_CHARS = 300
# How many sentences the model is shown at most (ADR 0071); 0 shows every sentence.
SHORTLIST = 8
# How many sentences the answerability model reads to choose them (its own pre-rank
# keeps the rest out: the model costs ~15 ms a sentence on one core).
_SHORTLIST_READ = 32
# "[1.1-1.99]" is a typo or an attack, not ninety-nine choices.
MAX_RANGE = 10
_ID = re.compile(r"(\d{1,3})\.(\d{1,3})")
_RANGE = re.compile(r"(\d{1,3})\.(\d{1,3})\s*[-–]\s*(?:(\d{1,3})\.)?(\d{1,3})")
_LIST_SEPARATOR = re.compile(r"[,;]|\band\b")  # no \s* around it: linear on long runs of spaces
_BETWEEN_IDS = re.compile(r"(?:\band\b|[\s,;.:\-–])+")
_SPACES = re.compile(r"\s+")

Proposal = Draft | Remark


def declines(text: str) -> bool:
    """Whether ``text`` (a lead-in) says that the passages do not answer."""
    return any(pattern.search(text) for pattern in DECLINE_PATTERNS)


def _fold(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def kept(text: str) -> str:
    """``text`` as a remark keeps it: whitespace folded, at most ``KEPT_CHARS``."""
    text = _fold(text)
    return text if len(text) <= KEPT_CHARS else text[:KEPT_CHARS] + "…"


def opening(lead: str) -> tuple[bool, list[Proposal]]:
    """What the model wrote before its first choice: whether it declined, and the
    remark the trace keeps of it (none for an empty lead-in)."""
    lead = lead.strip()
    if not lead:
        return False, []
    declined = declines(lead)
    return declined, [Remark("declined" if declined else "lead_in", kept(lead))]


@dataclass(frozen=True, slots=True)
class Numbered:
    """One sentence of the context: the passage it was cut from, its stored text
    (whitespace folded, nothing else changed) and where it starts in the passage."""

    passage_id: str
    text: str
    start: int = 0


def _answers_something(sentence: str) -> bool:
    return any(c.isalnum() for c in sentence)


def number_sentences(hit: Hit) -> list[Numbered]:
    """The passage's sentences as the splitter cuts them; one without a letter or
    digit (a rule, a lone bullet) answers nothing and gets no id."""
    text = hit.passage.text
    return [Numbered(hit.passage.passage_id, _fold(text[s.start:s.end]), s.start)
            for s in sentence_spans(text) if _answers_something(text[s.start:s.end])]


Shown = tuple[tuple[str, int], ...]  # (passage id, start of the sentence in it), best first


def _shortlist(
    question: str, hits: Sequence[Hit], passages: Sequence[Sequence[Numbered]], size: int
) -> Shown | None:
    """The ``size`` sentences of ``hits`` the answerability model reads as likeliest to
    answer ``question``, best first; None (show them all) when there are no more."""
    if size <= 0 or sum(map(len, passages)) <= size:
        return None
    reads = read_sentences(question, hits, keep=_answers_something, limit=_SHORTLIST_READ)
    return tuple((r.hit.passage.passage_id, r.start) for r in reads[:size])


def _block(number: int, hit: Hit, lines: Sequence[tuple[int, Numbered]]) -> str:
    head = f"Passage {number} — {source_label(hit.document.source)}"
    if hit.passage.region:
        head += f" · {hit.passage.region}"
    # Brackets in a document's text become parentheses: only Tether writes ids.
    return "\n".join([head, *(f"[{number}.{n}] " + s.text.replace("[", "(").replace("]", ")")
                               for n, s in lines)])


def _blocks(hits: Sequence[Hit], passages: Sequence[Sequence[Numbered]], shown: Shown | None) -> list[str]:
    """Every passage with every sentence, in retrieval order; with ``shown``, only those
    sentences, best first, each passage where its best one stands."""
    numbered = [list(enumerate(s, 1)) for s in passages]
    if shown is None:
        return [_block(p, hit, lines) for p, (hit, lines) in enumerate(zip(hits, numbered), 1)]
    place = {key: i for i, key in enumerate(shown)}
    ranked = [sorted(((place[(s.passage_id, s.start)], n, s) for n, s in lines
                      if (s.passage_id, s.start) in place)) for lines in numbered]
    order = sorted((lines[0][0], p) for p, lines in enumerate(ranked, 1) if lines)
    return [_block(p, hits[p - 1], [(n, s) for _, n, s in ranked[p - 1]]) for _, p in order]


@dataclass(frozen=True, slots=True)
class QuotePrompt:
    """What is sent to the model, and the sentence each id stands for."""

    system: str
    user: str
    passages: tuple[tuple[Numbered, ...], ...]  # [p.s] is passages[p - 1][s - 1]
    shown: Shown | None = None  # the sentences the model was shown; None: all
    texts: tuple[str, ...] = ()  # each passage's stored text, for what a choice leans on

    @classmethod
    def build(cls, question: str, hits: Sequence[Hit], *, steering: str | None = None,
              shortlist: int = 0) -> QuotePrompt:
        """The prompt over ``hits``; with ``shortlist`` > 0 and more sentences than that,
        only the ``shortlist`` the answerability model reads as likeliest are in it, best
        first, and a passage with none of them is left out."""
        system = QUOTE_SYSTEM_PROMPT
        if steering and steering.strip():
            system += "\n\nAbout the passages retrieved for this question: " + steering.strip()
        passages = tuple(tuple(number_sentences(hit)) for hit in hits)
        shown = _shortlist(question, hits, passages, shortlist)
        blocks = _blocks(hits, passages, shown)
        context = "\n\n".join(blocks) if blocks else "(no passages were retrieved)"
        user = f"Passages:\n\n{context}\n\nQuestion: {question.strip()}"
        return cls(system, user, passages, shown, tuple(hit.passage.text for hit in hits))

    def sentence(self, passage: int, sentence: int) -> Numbered | None:
        """The sentence ``[passage.sentence]`` stands for; None when there is none or
        the model was not shown it."""
        if 1 <= passage <= len(self.passages) and 1 <= sentence <= len(self.passages[passage - 1]):
            found = self.passages[passage - 1][sentence - 1]
            return found if self.shown is None or (found.passage_id, found.start) in self.shown else None
        return None


def _ids(item: str) -> list[tuple[int, int]] | None:
    """The ids one list item names ("2.3", "2.3-2.5", "2.3-5"); None if it is no id."""
    single = _ID.fullmatch(item)
    if single:
        return [(int(single.group(1)), int(single.group(2)))]
    span = _RANGE.fullmatch(item)
    if span is None:
        return None
    passage, first, last = int(span.group(1)), int(span.group(2)), int(span.group(4))
    if span.group(3) is not None and int(span.group(3)) != passage:
        return None  # a range across passages is no reading order
    if not 0 <= last - first < MAX_RANGE:
        return None
    return [(passage, n) for n in range(first, last + 1)]


class QuoteReader:
    """Feed the model's reply as it streams; get back drafts and remarks as soon as
    each id is complete. ``close`` after the stream ended; ``abandon`` after it failed."""

    def __init__(self, prompt: QuotePrompt) -> None:
        self.prompt = prompt
        self._buf = ""
        self._lead = ""  # text before the first id
        self._stray = ""  # text between and after ids
        self._started = False
        self._declined = False
        self._chosen: set[tuple[int, int]] = set()

    def feed(self, text: str) -> list[Proposal]:
        self._buf += text
        return self._scan(final=False)

    def close(self) -> list[Proposal]:
        out = self._scan(final=True)
        out += self._begin()
        if _BETWEEN_IDS.sub("", self._stray):
            out.append(Remark("stray_text", kept(self._stray)))
        self._stray = ""
        return out

    def abandon(self) -> tuple[list[Proposal], str]:
        """After a failed stream: the remarks so far, and the unfinished text dropped."""
        tail, self._buf = self._buf.strip(), ""
        return self.close(), tail

    def _scan(self, *, final: bool) -> list[Proposal]:
        out: list[Proposal] = []
        while self._buf:
            at = self._buf.find("[")
            if at != 0:
                self._text(self._buf if at < 0 else self._buf[:at])
                self._buf = "" if at < 0 else self._buf[at:]
                continue
            close = self._buf.find("]", 1, MAX_BRACKET)
            again = self._buf.find("[", 1, close if close > 0 else MAX_BRACKET)
            if close > 0 and again < 0:
                body, self._buf = self._buf[1:close], self._buf[close + 1 :]
                out += self._bracket(body)
                continue
            if again < 0 and len(self._buf) < MAX_BRACKET and not final:
                break  # an id may still be arriving
            cut = again if again > 0 else min(len(self._buf), MAX_BRACKET)
            piece, self._buf = self._buf[:cut], self._buf[cut:]
            out += self._unclosed(piece)
        return out

    def _unclosed(self, piece: str) -> list[Proposal]:
        """A "[" that never closed: a malformed id if it holds a digit, else text."""
        if any(ch.isdigit() for ch in piece):
            return [*self._begin(), Remark("ignored_id", kept(piece), "malformed")]
        self._text(piece)
        return []

    def _text(self, text: str) -> None:
        if self._started:
            self._stray = (self._stray + text)[: 4 * KEPT_CHARS]
        else:
            self._lead = (self._lead + text)[: 4 * KEPT_CHARS]

    def _bracket(self, body: str) -> list[Proposal]:
        if not any(ch.isdigit() for ch in body):
            self._text(f"[{body}]")  # "[sic]", "[see below]": words, not an id
            return []
        out = self._begin()
        for item in (piece.strip() for piece in _LIST_SEPARATOR.split(body)):
            ids = _ids(item) if _RANGE.fullmatch(item) else None
            for part in [item] if ids is not None else item.split():
                found = ids if ids is not None else _ids(part)
                if found is None:
                    out.append(Remark("ignored_id", kept(f"[{part}]"), "malformed"))
                    continue
                out += [p for passage, sentence in found for p in self._choose(passage, sentence)]
        return out

    def _begin(self) -> list[Proposal]:
        """At the first id (or the end): the lead-in, and whether it declined."""
        if self._started:
            return []
        self._started = True
        self._declined, remarks = opening(self._lead)
        return remarks

    def _choose(self, passage: int, sentence: int) -> list[Proposal]:
        label = f"{passage}.{sentence}"
        found = self.prompt.sentence(passage, sentence)
        if self._declined:
            why = "after_decline"
        elif (passage, sentence) in self._chosen:
            why = "duplicate"
        elif found is None:
            why = "out_of_range"
        else:
            self._chosen.add((passage, sentence))
            return [*self._leaned_on(passage, sentence, found),
                    Draft(found.text, (found.passage_id,), quoted=label)]
        return [Remark("ignored_id", f"[{label}]", why)]

    def _leaned_on(self, passage: int, sentence: int, found: Numbered) -> list[Draft]:
        """What a chosen sentence is shown after, as the extractive answer shows it (ADR
        0074): the term line of the unit it opens ("-w, --warm-up" over "Holds the kiln
        …"), and the sentence before it when it qualifies that one ("But a storm …")."""
        numbered = self.prompt.passages[passage - 1]
        text = self.prompt.texts[passage - 1] if self.prompt.texts else ""
        term = unit_term(text, found.start) if text else None
        if term:
            before = [n for n, s in enumerate(numbered, 1) if s.start <= term[0] < s.start + len(s.text)]
        elif qualifies(found.text) and sentence > 1:
            before = [sentence - 1]
        else:
            before = []
        out = []
        for n in before:
            if (passage, n) not in self._chosen:
                self._chosen.add((passage, n))
                out.append(Draft(numbered[n - 1].text, (found.passage_id,)))
        return out

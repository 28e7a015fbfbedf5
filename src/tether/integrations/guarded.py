"""The guard for another framework's answer: the answer text and the framework's own
source objects in; the sentences a source supports, each citing it, and the dropped
ones, each with its verdict, out.

The adapters beside this module (``llamaindex``, ``langchain``, ``haystack``) only turn
their framework's objects into ``Source`` triples and the ``GuardedAnswer`` back into
their framework's shape; the verifying is ``facade.verify_answer``, the same guard as
``tether verify`` and ``POST /v1/verify`` (ADR 0054).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..config import Settings, load_settings
from ..errors import InputError, MissingExtra
from ..facade import verify_answer
from ..judges import load_judge
from ..judges.base import Judge
from ..modes import resolve_modes
from ..records import Dropped, Verdict, to_json

__all__ = ["FROM_SETTINGS", "Guard", "GuardedAnswer", "GuardedSentence", "MissingFramework", "Source"]


class MissingFramework(MissingExtra, ImportError):
    """An adapter imported without its framework: an ``ImportError`` (what importing a
    module that cannot be imported raises) that names the extra to install."""

    def __init__(self, framework: str, extra: str) -> None:
        super().__init__(f"tether.integrations.{extra} (the {framework} guard)", extra)


class Source(NamedTuple):
    """One of the framework's sources: its own id (``None`` when it has none), the text
    the guard reads, and the object itself, handed back with the sentences it supports."""

    id: str | None
    text: str
    item: Any


@dataclass(frozen=True, slots=True)
class GuardedSentence:
    """A sentence a source supports: ``quote`` is ``source_text[span[0]:span[1]]`` of the
    source ``source_id`` names (``verdict.span``), ``source`` that source's object."""

    text: str
    source_id: str
    quote: str
    verdict: Verdict
    source: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class GuardedAnswer:
    """What the guard let through (``sentences``, in the answer's order) and what it
    held back (``dropped``: a contradicted, merely mentioned or unsupported sentence,
    with the verdict that says which and the source it was read against)."""

    sentences: tuple[GuardedSentence, ...]
    dropped: tuple[Dropped, ...]
    # source id (the framework's, or "#index" where it has none) -> the framework's object
    sources: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def text(self) -> str:
        """The verified sentences, joined: the answer as it may be shown."""
        return " ".join(sentence.text for sentence in self.sentences)

    def cited(self) -> list[Any]:
        """The cited sources' objects, each once, in the order the answer first cites them."""
        ids = dict.fromkeys(sentence.source_id for sentence in self.sentences)
        return [self.sources[source_id] for source_id in ids]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready data (the sources by id, not the framework's objects)."""
        return {
            "text": self.text,
            "sentences": [
                {"text": s.text, "source_id": s.source_id, "quote": s.quote, "verdict": to_json(s.verdict)}
                for s in self.sentences
            ],
            "dropped": to_json(self.dropped),
        }


def source_ids(ids: Sequence[str | None]) -> list[str]:
    """One distinct id per source: its own, or ``#index`` for one without an id or
    whose id an earlier source already holds (a verdict names its source by this id)."""
    taken: set[str] = set()
    out: list[str] = []
    for index, own in enumerate(ids):
        key = own if own and own not in taken else f"{own or ''}#{index}"
        while key in taken:  # an own id that looks like a made one ("#1")
            key += f"#{index}"
        taken.add(key)
        out.append(key)
    return out


def _require_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be text (str), not {type(value).__name__}")
    return value


def _verdict(row: Mapping[str, Any]) -> Verdict:
    span = row["span"]
    return Verdict(row["outcome"], row["score"], row["passage_id"],
                   (span[0], span[1]) if span else None, tuple(row["reasons"]), row["checker"],
                   tuple(row["rules"]))


FROM_SETTINGS: Any = object()  # ``judge`` default: the judge the settings name, as ``tether verify``


class Guard:
    """Settings and judge, loaded once; ``check`` verifies one answer against its sources.

    ``judge`` is the model judge each verdict goes through (``FROM_SETTINGS``: the one
    the ``judge``/``reader`` settings name — the shipped support model by default — as
    ``tether verify`` loads it, with no store's calibration; ``None``: the lexical test
    alone); ``modes`` sets gates for every check (``{"judge": "off"}``), checked here.
    """

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        judge: Judge | None = FROM_SETTINGS,
        modes: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.judge = load_judge(self.settings) if judge is FROM_SETTINGS else judge
        self.modes = dict(modes) if modes else None
        resolve_modes(self.settings.modes, self.modes)  # an unknown gate or mode: ConfigError now

    def check(self, answer: str, sources: Sequence[Source]) -> GuardedAnswer:
        """The answer's sentences, verified against ``sources``; an empty answer keeps
        and drops nothing, and with no sources every sentence is dropped unsupported."""
        _require_text(answer, "the answer")
        for index, source in enumerate(sources):
            _require_text(source.text, f"source {index}'s text")
        ids = source_ids([source.id for source in sources])
        by_id = dict(zip(ids, (source.item for source in sources), strict=True))
        # One process: a framework's process holds threads and connections a fork would copy.
        rows = verify_answer(passages=dict(zip(ids, (s.text for s in sources), strict=True)),
                             answer=answer, settings=self.settings, modes=self.modes,
                             judge=self.judge, workers=1)
        kept = [
            GuardedSentence(row["text"], row["passage_id"], row["quote"] or "", _verdict(row),
                            by_id[row["passage_id"]])
            for row in rows if row["outcome"] == "supported"
        ]
        dropped = [Dropped(row["text"], _verdict(row)) for row in rows if row["outcome"] != "supported"]
        return GuardedAnswer(tuple(kept), tuple(dropped), by_id)


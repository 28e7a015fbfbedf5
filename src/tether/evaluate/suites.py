"""The evaluation suites shipped with Tether: a corpus (or several), its labels, questions.

- ``demo``: the chemical-safety demo corpus and its 40 labelled questions.
- ``injection``: documents written with planted instructions (HTML comments and hidden
  elements, PDF text, Markdown comments, plain prose) and clean documents with
  instruction-like vocabulary, over the demo corpus as background, with questions
  that touch the planted text. Every planted instruction is labelled in the manifests.

``build_suite_store`` ingests a suite the way ``tether demo`` builds its store (each
corpus with its manifest, through ``Tether.ingest``) and keeps what ingest flagged
per document.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from ..config import Settings
from ..errors import InputError
from ..facade import Tether
from .golden import Labels, load_labels

__all__ = ["SUITES", "Suite", "build_suite_store", "suite"]


@dataclass(frozen=True, slots=True)
class Suite:
    name: str
    corpora: tuple[Path, ...]  # folders, each with a manifest.json
    golden: Path

    def labels(self) -> Labels:
        labels = Labels()
        for corpus in self.corpora:
            labels = labels.merged(load_labels(corpus / "manifest.json"))
        return labels


def _demo() -> Path:
    return Path(str(files("tether") / "demo"))


SUITES = ("demo", "injection")


def suite(name: str) -> Suite:
    demo = _demo()
    if name == "demo":
        return Suite("demo", (demo / "corpus",), demo / "questions.jsonl")
    if name == "injection":
        return Suite(
            "injection",
            (demo / "corpus", demo / "injection" / "corpus"),
            demo / "injection" / "questions.jsonl",
        )
    raise InputError(f"unknown suite {name!r}", hint="built-in suites: " + ", ".join(SUITES))


def build_suite_store(
    s: Suite, db: Path, *, settings: Settings
) -> tuple[Tether, dict[str, tuple[str, ...]]]:
    """A Tether over the suite's corpora at ``db``, and ingest's flags per ``doc_id``."""
    tether = Tether(db, settings=settings)
    flags: dict[str, tuple[str, ...]] = {}
    try:
        for corpus in s.corpora:
            for result in tether.ingest(corpus, manifest=corpus / "manifest.json"):
                if result.status == "failed" or result.doc_id is None:
                    raise InputError(f"suite {s.name}: {result.path}: {result.error}")
                flags[result.doc_id] = result.flags
    except BaseException:
        tether.close()
        raise
    return tether, flags

"""A small collection written for the abstain tests: fictional substances and a site.

Deterministic on purpose: the probe scores of the labelled questions below depend
only on these texts, so calibration on them has one right answer.
"""

from __future__ import annotations

from pathlib import Path

from tether.config import Settings
from tether.facade import Tether

DOCUMENTS = {
    "corvane.txt": (
        "Corvane\n\n"
        "Corvane is a clear solvent used to degrease valves. Corvane boils at 71 °C. "
        "The Kestrel Board limit for corvane is 30 ppm over eight hours. "
        "Corvane was first made in 1961 by Idris Alwen."
    ),
    "brisol.txt": (
        "Brisol\n\n"
        "Brisol is a pale oil used in pump seals. Brisol boils at 118 °C. "
        "The Kestrel Board limit for brisol is 5 ppm over eight hours."
    ),
    "orlan-quay.txt": (
        "Orlan Quay incident\n\n"
        "The Orlan Quay release happened on 4 May 2025 during a tank transfer. "
        "The site manager at Orlan Quay is Petra Lindqvist. "
        "Operators cleared the quay within ten minutes."
    ),
    "gloves.txt": (
        "Glove guide\n\n"
        "Nitrile gloves resist oils such as brisol. Butyl gloves resist solvents such "
        "as corvane. Gloves are replaced after every shift."
    ),
}

ANSWERABLE = [
    "What does corvane boil at?",
    "What is the Kestrel Board limit for brisol?",
    "Who is the site manager at Orlan Quay?",
    "When did the Orlan Quay release happen?",
]
UNANSWERABLE = [
    "What is the Kestrel Board limit for xanthrol?",
    "Who is the finance director of Velmont Holdings?",
    "What is the shelf life of Dravex gloves?",
]


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def make_tether(tmp_path: Path, **settings: object) -> Tether:
    tether = Tether(tmp_path / "store.db", settings=Settings(**settings))  # type: ignore[arg-type]
    results = tether.ingest(write_corpus(tmp_path / "docs"), license="CC0")
    assert all(r.status == "ingested" for r in results), results
    return tether

"""Tether: answers where every sentence is tied to the exact passage that supports it.

>>> from tether import Tether                                       # doctest: +SKIP
>>> with Tether("store.db") as t:                                   # doctest: +SKIP
...     t.ingest("docs/")
...     print(t.ask("What is the flash point of acetone?").sentences)
"""

from typing import TYPE_CHECKING

from .config import Settings, load_settings
from .errors import (
    AccessDenied,
    ConfigError,
    ExtractionError,
    InputError,
    LimitExceeded,
    MissingExtra,
    NotFound,
    ProviderError,
    StoreError,
    TetherError,
    UnsupportedInput,
)
from .ingest.files import IngestResult, Metadata
from .records import (
    Answer,
    AnswerSentence,
    Citation,
    Document,
    Draft,
    Dropped,
    Hit,
    Passage,
    Probe,
    Verdict,
    Version,
    to_json,
)

if TYPE_CHECKING:  # imported on first use (``__getattr__`` below)
    from .facade import Event, Tether, verify_answer
    from .ops.cite import Resolution, resolve

__all__ = [
    "AccessDenied",
    "Answer",
    "AnswerSentence",
    "Citation",
    "ConfigError",
    "Document",
    "Draft",
    "Dropped",
    "Event",
    "ExtractionError",
    "Hit",
    "IngestResult",
    "InputError",
    "LimitExceeded",
    "Metadata",
    "MissingExtra",
    "NotFound",
    "Passage",
    "Probe",
    "ProviderError",
    "Resolution",
    "Settings",
    "StoreError",
    "Tether",
    "TetherError",
    "UnsupportedInput",
    "Verdict",
    "Version",
    "load_settings",
    "resolve",
    "to_json",
    "verify_answer",
]

# The facade (and the whole pipeline under it) is imported on first use, not with
# the package: ingest's worker processes import ``tether.ingest`` and need none of
# it (it was most of a worker's start-up, issue 20).
_LAZY = {"Event": ".facade", "Tether": ".facade", "verify_answer": ".facade",
         "Resolution": ".ops.cite", "resolve": ".ops.cite"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

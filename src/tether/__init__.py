"""Tether: answers where every sentence is tied to the exact passage that supports it.

>>> from tether import Tether                                       # doctest: +SKIP
>>> with Tether("store.db") as t:                                   # doctest: +SKIP
...     t.ingest("docs/")
...     print(t.ask("What is the flash point of acetone?").sentences)
"""

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
from .facade import Event, Tether, verify_answer
from .ingest.sources import IngestResult, Metadata
from .ops.cite import Resolution, resolve
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

"""One error root for everything Tether raises on purpose.

    TetherError
    ├── ConfigError          a setting is unknown, malformed or inconsistent
    ├── InputError           a file, question or JSON payload is unusable
    │   ├── UnsupportedInput     a format Tether cannot read (binary, unknown type)
    │   ├── ExtractionError      a readable format whose content is broken (corrupt PDF)
    │   └── LimitExceeded        a documented resource limit was hit (size, pages, depth)
    ├── StoreError           the store is missing, locked or inconsistent
    ├── NotFound             a document, version or trace that does not exist
    ├── AccessDenied         the caller's principals cannot read the object
    ├── ProviderError        a model provider failed (network, protocol, quota)
    ├── ModelFileError       a shipped model's file is missing, unreadable or not its own
    └── MissingExtra         an optional dependency is not installed

Abstaining is never an error: a refusal is an ordinary ``Answer`` with
``refused=True``. Foreign exceptions are translated at the boundary with
``raise ... from exc`` so the CLI can print one clear line.
"""

from __future__ import annotations

__all__ = [
    "AccessDenied",
    "ConfigError",
    "ExtractionError",
    "InputError",
    "LimitExceeded",
    "MissingExtra",
    "ModelFileError",
    "NotFound",
    "ProviderError",
    "StoreError",
    "TetherError",
    "UnsupportedInput",
]


class TetherError(Exception):
    """Root of every error Tether raises deliberately.

    ``hint`` tells the user what to do about it; the CLI prints it after the message.
    """

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} ({self.hint})" if self.hint else base


class ConfigError(TetherError):
    exit_code = 2


class InputError(TetherError):
    exit_code = 2


class UnsupportedInput(InputError):
    pass


class ExtractionError(InputError):
    pass


class LimitExceeded(InputError):
    pass


class StoreError(TetherError):
    exit_code = 3


class NotFound(TetherError):
    exit_code = 4


class AccessDenied(TetherError):
    exit_code = 4


class ProviderError(TetherError):
    exit_code = 5


class ModelFileError(TetherError):
    """A file of a shipped model (``tether.readers``) is missing, unreadable or does not
    match its recorded sha256; the message names the file and how to rebuild it."""

    exit_code = 3


class MissingExtra(TetherError):
    """An optional feature was asked for without its extra installed."""

    exit_code = 2

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(
            f"{feature} needs the optional dependencies of tether[{extra}]",
            hint=f"pip install 'tether[{extra}]'",
        )
        self.extra = extra

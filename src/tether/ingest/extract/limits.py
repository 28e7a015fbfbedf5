"""Resource limits shared by the formats: sizes, text length, bounded decompression.

Each check runs before the expensive step it guards, and a refusal names the
setting to raise, because a genuine document over a limit is a configuration
question, not a broken file.
"""

from __future__ import annotations

import zlib

from ...config import Settings
from ...errors import ExtractionError, LimitExceeded

__all__ = ["check_chars", "check_size", "gunzip", "inflate_cap"]

# Inflating to this much is never refused for its ratio: a 5 KiB page may be 200 KiB.
_INFLATE_FLOOR = 1024 * 1024


def check_size(size: int, settings: Settings, name: str) -> None:
    """Refuse input over ``max_file_bytes``."""
    if size > settings.max_file_bytes:
        raise LimitExceeded(
            f"{name}: {size} bytes is over the max_file_bytes limit of {settings.max_file_bytes}",
            hint="raise max_file_bytes in tether.toml or TETHER_MAX_FILE_BYTES if this file is "
            "meant to be ingested",
        )


def check_chars(count: int, settings: Settings, name: str) -> None:
    """Refuse text over ``max_text_chars``."""
    if count > settings.max_text_chars:
        raise LimitExceeded(
            f"{name}: extracted text is over the max_text_chars limit of "
            f"{settings.max_text_chars} characters",
            hint="raise max_text_chars in tether.toml or TETHER_MAX_TEXT_CHARS, or split the "
            "document",
        )


def inflate_cap(size: int, settings: Settings) -> int:
    """Most bytes ``size`` compressed bytes may inflate to (``max_decompression_ratio``)."""
    return max(_INFLATE_FLOOR, settings.max_decompression_ratio * size)


def gunzip(data: bytes, settings: Settings, name: str) -> bytes:
    """Inflate gzip with a hard cap: ``max_decompression_ratio`` times the compressed
    size, and never more than ``max_file_bytes``.

    The cap is checked while inflating, in bounded steps, so a bomb costs at most the
    cap in memory before it is refused.
    """
    cap = min(settings.max_file_bytes, inflate_cap(len(data), settings))
    out = bytearray()
    pending = data
    try:
        while pending:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            chunk = pending
            while chunk:
                out += inflater.decompress(chunk, cap + 1 - len(out))
                if len(out) > cap:
                    raise _bomb(name, cap, settings)
                chunk = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if not inflater.eof:
                raise ExtractionError(f"{name}: gzip data is truncated")
            pending = inflater.unused_data  # another gzip member may follow
    except zlib.error as exc:
        raise ExtractionError(f"{name}: corrupt gzip data: {exc}") from exc
    return bytes(out)


def _bomb(name: str, cap: int, settings: Settings) -> LimitExceeded:
    setting = "max_file_bytes" if cap == settings.max_file_bytes else "max_decompression_ratio"
    return LimitExceeded(
        f"{name}: gzip content inflates past {cap} bytes, over the {setting} "
        f"limit (a decompression bomb?)",
        hint=f"raise {setting} in tether.toml or TETHER_{setting.upper()} if "
        "the page is genuine",
    )

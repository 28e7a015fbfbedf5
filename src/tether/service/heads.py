"""Size bounds of a request's head (request line and headers), checked as it arrives.

h11 alone parses any head that arrives in one read, whatever its size, and cuts one
that arrives in pieces past 16 KiB with a plain-text 400 and a close while the client
is still sending, which the client reads as a connection reset. Here:

- a request line (method, path, query) over ``MAX_REQUEST_LINE_BYTES`` is **414**;
- a head over ``MAX_HEAD_BYTES`` is **431**;
- any other head h11 cannot parse is **400**;

each a problem+json answer, after which the server reads and drops what the client
still sends (up to ``DRAIN_BYTES``, for at most the header timeout) before closing,
so the client reads the answer instead of a reset. ``deadlines.header_timeout_protocol``
applies them under ``tether serve``.

    >>> head_refusal(b"GET /" + b"a" * 9000)
    (414, 'the request line is longer than 8192 bytes')
    >>> head_refusal(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n") is None
    True
"""

from __future__ import annotations

import re

__all__ = ["DRAIN_BYTES", "MAX_HEAD_BYTES", "MAX_REQUEST_LINE_BYTES", "head_refusal"]

MAX_REQUEST_LINE_BYTES = 8 * 1024
MAX_HEAD_BYTES = 32 * 1024
# What a refused client may still send before the connection is closed on it.
DRAIN_BYTES = 4 * 1024 * 1024
_HEAD_END = re.compile(rb"\r?\n\r?\n")


def head_refusal(buffer: bytes) -> tuple[int, str] | None:
    """(status, detail) when the head that starts ``buffer`` is over a bound, else
    ``None`` (also while it may still end within the bounds)."""
    if buffer.find(b"\n", 0, MAX_REQUEST_LINE_BYTES + 2) == -1:  # the line, its CR, its LF
        if len(buffer) >= MAX_REQUEST_LINE_BYTES + 2:
            return 414, f"the request line is longer than {MAX_REQUEST_LINE_BYTES} bytes"
        return None
    end = _HEAD_END.search(buffer, 0, MAX_HEAD_BYTES + 4)
    if (end is None and len(buffer) > MAX_HEAD_BYTES) or (end is not None and end.end() > MAX_HEAD_BYTES):
        return 431, f"the request headers are larger than {MAX_HEAD_BYTES} bytes"
    return None

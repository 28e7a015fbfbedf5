"""Hostile requests of issue 19 §2, built the same way for the tests and the load bench
(bench/bench_hostile_load.py): a PDF whose pages all draw one big content stream, a
verify request of many sentences x many passages, and a client that trickles its
request over a real socket."""

from __future__ import annotations

import socket
import time
import zlib

__all__ = ["shared_stream_pdf", "trickle", "verify_body"]

_DRAWING = b"10 10 m 200 200 l 300 50 l h S\n"  # 11 tokens: a closed, stroked path
_TEXT = b"BT /F1 12 Tf 72 700 Td (Shared stream page) Tj ET\n"


def shared_stream_pdf(pages: int = 2000, stream_bytes: int = 8 * 1024 * 1024, *,
                      text: bool = False) -> bytes:
    """``pages`` pages whose ``/Contents`` is one and the same Flate stream of
    ``stream_bytes`` of path drawing (with one line of text first when ``text``):
    ~340 KB on disk for 2,000 pages and 8 MiB, ~4 GB of content to a naive reader."""
    body = (_TEXT if text else b"") + _DRAWING * (stream_bytes // len(_DRAWING))
    stream = zlib.compress(body, 9)
    font = 4 + pages
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Count %d /Kids [%s] >>"
           % (pages, b" ".join(b"%d 0 R" % (4 + i) for i in range(pages))),
        3: b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream),
        font: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    for i in range(pages):
        objects[4 + i] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R"
                          b" /Resources << /Font << /F1 %d 0 R >> >> >>" % font)
    out = bytearray(b"%PDF-1.7\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref, size = len(out), max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def verify_body(sentences: int, passages: int) -> dict[str, object]:
    """``sentences`` x ``passages`` short texts sharing their words (~76 KB at 1,000 x
    1,000), so the guard's index finds candidates for every sentence."""
    words = ["flash", "point", "diesel", "lamp", "oil", "boils", "vapour", "pressure",
             "methanol", "cabinet", "store", "heavier"]

    def text(i: int) -> str:
        return " ".join(words[(i * k) % len(words)] for k in (1, 3, 5, 7)).capitalize() + "."

    return {"passages": [{"id": f"p{i}", "text": text(i)} for i in range(passages)],
            "sentences": [text(i + 1) for i in range(sentences)]}


def trickle(host: str, port: int, head: bytes, body: bytes = b"", *, every_s: float = 0.2,
            give_up_s: float = 30.0) -> tuple[bytes, float]:
    """Send ``head`` at once, then one byte every ``every_s``: of ``body`` when given,
    else of a header line that never ends (``head`` without its final blank line), so
    the headers never complete. Returns what the server sent back and when (seconds
    from the start) it closed the connection, or ``give_up_s`` if it never did."""
    if body:
        first, rest = head, body
    else:
        first, rest = head.rstrip(b"\r\n") + b"\r\nX-Slow: ", b"a" * 100_000
    started = time.monotonic()
    got = b""
    with socket.create_connection((host, port), timeout=give_up_s) as sock:
        sock.sendall(first)
        sock.setblocking(False)
        sent, next_byte = 0, started + every_s
        while time.monotonic() - started < give_up_s:
            try:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                got += chunk
            except BlockingIOError:
                pass
            except OSError:  # reset by the server
                break
            if sent < len(rest) and time.monotonic() >= next_byte:
                next_byte += every_s
                try:
                    sent += sock.send(rest[sent:sent + 1])
                except BlockingIOError:
                    pass
                except OSError:
                    break
            time.sleep(min(every_s, 0.02))  # the close is seen within 20 ms
    return got, time.monotonic() - started

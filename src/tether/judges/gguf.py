"""A GGUF model file, checked and loaded once per process through llama.cpp (xllamacpp).

``load_model(path)`` reads the file's header first, so a missing, truncated or foreign
file is a ``ConfigError`` that says what is wrong with it (llama.cpp itself only says
"failed to init"); then it loads the model in-process with xllamacpp (``tether[reader]``)
and keeps it for the life of the process, shared by every ``Tether`` and every thread
that names the same file. ``ReaderModel.yes_probability`` is the one thing the reader
asks of it: the probability of "yes" against "no" as the first token of the reply,
read from the first token's log-probabilities (never from sampled text).

llama.cpp's embedded server also listens on a loopback port; it is given a random API
key that is never shown, so nothing but this process can use the model.

    >>> model = load_model("/models/reader.gguf")                  # doctest: +SKIP
    >>> model.yes_probability("Answer yes or no.", "Is 2 > 1?", timeout=10)  # doctest: +SKIP
    0.97
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import struct
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import ConfigError, MissingExtra

__all__ = ["GgufHeader", "ReaderFailure", "ReaderModel", "file_sha256", "load_model", "read_header"]

_MAGIC = b"GGUF"
# The value types of GGUF metadata (gguf.md): scalar sizes, 8 = string, 9 = array.
_SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_MAX_HEADER_ITEMS = 1 << 20  # a count above this is a corrupt header, not a model
# What the reader sends as the label: both spellings the chat models use first.
_LABEL_GRAMMAR = 'root ::= "yes" | "no" | "Yes" | "No"'
_TOP = 20  # first-token alternatives read for the label


class ReaderFailure(Exception):
    """One call to the model gave no label (timeout, an error reply, no yes/no token)."""


@dataclass(frozen=True, slots=True)
class GgufHeader:
    """What the header of a GGUF file says, read without loading it."""

    version: int
    architecture: str
    name: str
    tensors: int
    data_start: int  # where the tensor data begins
    last_tensor: int  # offset of the last tensor's data, relative to ``data_start``


def _bad(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"judge model {path} is not a usable GGUF file: {why}",
        hint="pass a complete GGUF model file (bench/reader_model.py fetches a verified one)",
    )


class _Reader:
    """Little-endian reads from a GGUF header with clear errors at the file's end."""

    def __init__(self, f: BinaryIO, path: Path) -> None:
        self.f, self.path = f, path

    def take(self, n: int) -> bytes:
        data = self.f.read(n)
        if len(data) != n:
            raise _bad(self.path, "the file ends inside its header (truncated)")
        return data

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def u64(self) -> int:
        return int(struct.unpack("<Q", self.take(8))[0])

    def string(self) -> str:
        n = self.u64()
        if n > 1 << 24:
            raise _bad(self.path, "a header string is longer than 16 MiB (corrupt)")
        return self.take(n).decode("utf-8", "replace")

    def skip_value(self, kind: int) -> None:
        if kind in _SCALARS:
            self.take(_SCALARS[kind])
        elif kind == _STRING:
            self.string()
        elif kind == _ARRAY:
            inner, count = self.u32(), self.u64()
            if count > 1 << 28:
                raise _bad(self.path, "a header array is implausibly long (corrupt)")
            if inner in _SCALARS:
                self.take(_SCALARS[inner] * count)
            else:
                for _ in range(count):
                    self.skip_value(inner)
        else:
            raise _bad(self.path, f"unknown metadata value type {kind} (corrupt)")


def read_header(path: str | os.PathLike[str]) -> GgufHeader:
    """The header of the GGUF file at ``path``; a ``ConfigError`` names what is wrong."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"judge model {file} does not exist or is not a file",
                          hint='judge = "gguf:PATH" names a local GGUF file')
    try:
        with file.open("rb") as f:
            return _parse(_Reader(f, file), file.stat().st_size)
    except OSError as exc:
        raise ConfigError(f"judge model {file} cannot be read: {exc.strerror or exc}") from exc


def _parse(r: _Reader, size: int) -> GgufHeader:
    if r.f.read(4) != _MAGIC:
        raise _bad(r.path, "it does not start with the GGUF magic bytes")
    version = r.u32()
    if version not in (2, 3):
        raise _bad(r.path, f"GGUF version {version} is not 2 or 3")
    tensors, items = r.u64(), r.u64()
    if tensors > _MAX_HEADER_ITEMS or items > _MAX_HEADER_ITEMS:
        raise _bad(r.path, "its header counts are implausible (corrupt)")
    meta: dict[str, str] = {}
    alignment = 32
    for _ in range(items):
        key, kind = r.string(), r.u32()
        if kind == _STRING and key in ("general.architecture", "general.name"):
            meta[key] = r.string()
        elif key == "general.alignment" and kind == 4:
            alignment = max(1, r.u32())
        else:
            r.skip_value(kind)
    last = 0
    for _ in range(tensors):
        r.string()
        dims = r.u32()
        if dims > 8:
            raise _bad(r.path, "a tensor has more than 8 dimensions (corrupt)")
        r.take(8 * dims + 4)  # the dimensions, then the element type
        last = max(last, r.u64())
    start = -(-r.f.tell() // alignment) * alignment
    header = GgufHeader(version, meta.get("general.architecture", ""),
                        meta.get("general.name", ""), tensors, start, last)
    if not header.architecture:
        raise _bad(r.path, "its header names no general.architecture")
    if tensors == 0:
        raise _bad(r.path, "it holds no tensors (no model weights)")
    if size <= start + last:
        raise _bad(r.path, f"the file ends at byte {size}, before its last tensor "
                   f"(at {start + last}): truncated")
    return header


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tether" / "gguf-sha256.json"


_HASH_LOCK = threading.Lock()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The file's sha256, hashed once per file version (path, size, mtime, inode).

    A 1 GB model takes seconds to hash, so the digest is remembered in the user's
    cache folder; a changed file (another size, mtime or inode) is hashed again.
    """
    file = Path(path).resolve()
    st = file.stat()
    key = f"{file}|{st.st_size}|{st.st_mtime_ns}|{st.st_ino}"
    cache = _cache_file()
    with _HASH_LOCK:
        try:
            known: dict[str, str] = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if isinstance(known, dict) and isinstance(known.get(key), str):
            return known[key]
        with file.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        kept = {k: v for k, v in known.items() if not k.startswith(f"{file}|")}
        kept[key] = digest
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(kept), encoding="utf-8")
            tmp.replace(cache)
        except OSError:
            pass  # a read-only home: hash again next time
        return digest


def _xllamacpp() -> Any:
    try:
        import xllamacpp
    except ImportError as exc:
        raise MissingExtra('judge = "gguf:PATH"', "reader") from exc
    return xllamacpp


def _threads(wanted: int) -> int:
    if wanted > 0:
        return wanted
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class ReaderModel:
    """One GGUF model loaded in-process; calls from any thread share it.

    ``slots`` is llama.cpp's parallel sequences (each with ``ctx`` tokens of context):
    with one slot, concurrent calls queue inside llama.cpp and each keeps the cache
    of the prompt before it; with more, they are decoded together.
    """

    def __init__(self, path: Path, *, ctx: int, slots: int, threads: int) -> None:
        self.path = path
        self.header = read_header(path)
        self.sha256 = file_sha256(path)
        self.name = self.header.name or path.stem
        xl = _xllamacpp()
        params = xl.CommonParams()
        params.model.path = str(path)
        params.n_ctx = ctx * slots
        params.n_parallel = slots
        params.n_predict = 1
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = _threads(threads)
        params.sampling.temp = 0
        params.verbosity = -1
        params.cache_ram_mib = 256  # llama.cpp's host prompt cache (its default: 8 GiB)
        # The embedded server's loopback port: a key nobody knows closes it.
        params.hostnames = ["127.0.0.1"]
        params.api_keys = [secrets.token_urlsafe(32)]
        params.endpoint_props = params.endpoint_slots = params.endpoint_metrics = False
        params.ui = False
        try:
            self._server = xl.Server(params)
        except RuntimeError as exc:
            arch = self.header.architecture
            raise ConfigError(
                f"llama.cpp could not load judge model {path} (architecture {arch!r}): {exc}",
                hint="the file must be a model llama.cpp supports, e.g. an instruction-tuned "
                     "chat model",
            ) from exc
        self.ctx, self.slots = ctx, slots
        # One worker per slot: a request waiting for a slot waits here, where a
        # timeout can still cancel it, not in llama.cpp's queue, where it cannot.
        self._pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="tether-reader")

    def chat(self, request: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
        """One chat completion; a ``ReaderFailure`` after ``timeout`` seconds.

        llama.cpp cannot abandon a request it has started, so a timed-out call that
        had reached a slot still finishes in the background (later calls wait for
        it); one still waiting for a slot is cancelled.
        """
        future = self._pool.submit(self._server.handle_chat_completions, dict(request))
        try:
            reply = future.result(timeout=timeout)
        except FutureTimeout as exc:
            future.cancel()
            raise ReaderFailure(f"no reply within {timeout:g} s") from exc
        except (RuntimeError, ValueError) as exc:
            raise ReaderFailure(f"llama.cpp failed: {exc}") from exc
        if not isinstance(reply, dict) or "error" in reply:
            error = reply.get("error") if isinstance(reply, dict) else reply
            message = error.get("message") if isinstance(error, dict) else error
            raise ReaderFailure(f"llama.cpp refused the request: {message}")
        return reply

    def yes_probability(self, system: str, user: str, *, timeout: float) -> float:
        """P("yes") / (P("yes") + P("no")) for the reply's first token."""
        reply = self.chat({
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
            "max_tokens": 1, "temperature": 0, "logprobs": True, "top_logprobs": _TOP,
            "grammar": _LABEL_GRAMMAR, "cache_prompt": True,
        }, timeout=timeout)
        return label_probability(reply)


def label_probability(reply: Mapping[str, Any]) -> float:
    """P(yes) among the yes/no spellings of the first token's top log-probabilities.

    The grammar makes the sampled token a label; the probabilities are the model's
    before the grammar, so they say how sure it was. A reply whose text is not a
    label, or whose first token has no yes or no among its alternatives, is a
    ``ReaderFailure``, never a guess.
    """
    try:
        choice = reply["choices"][0]
        text = str(choice["message"]["content"]).strip().lower()
        top = choice["logprobs"]["content"][0]["top_logprobs"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ReaderFailure(f"malformed reply: {str(reply)[:120]}") from exc
    if text not in ("yes", "no"):
        raise ReaderFailure(f"the reply {text[:40]!r} is not yes or no")
    mass = {"yes": 0.0, "no": 0.0}
    for alt in top:
        word = str(alt.get("token", "")).strip().strip(".,!:;\"'").lower()
        if word in mass and isinstance(alt.get("logprob"), (int, float)):
            mass[word] += math.exp(float(alt["logprob"]))
    total = mass["yes"] + mass["no"]
    if total <= 0.0:
        raise ReaderFailure(f"neither yes nor no is among the first token's top {_TOP}")
    return mass["yes"] / total


_MODELS: dict[tuple[str, int, int, int], ReaderModel] = {}
_LOAD_LOCK = threading.Lock()


def load_model(
    path: str | os.PathLike[str], *, ctx: int = 4096, slots: int = 1, threads: int = 0
) -> ReaderModel:
    """The model at ``path``, loaded on first use and then shared by the whole process."""
    if ctx < 256 or slots < 1 or threads < 0:
        raise ConfigError(f"the reader needs ctx >= 256, slots >= 1 and threads >= 0; "
                          f"got {ctx}, {slots}, {threads}")
    file = Path(path).expanduser()
    key = (str(file.resolve()), ctx, slots, threads)
    with _LOAD_LOCK:
        model = _MODELS.get(key)
        if model is None:
            model = _MODELS[key] = ReaderModel(file, ctx=ctx, slots=slots, threads=threads)
        return model

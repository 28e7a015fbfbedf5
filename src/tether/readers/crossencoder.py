"""A shipped cross-encoder: one model directory, read and checked, run on CPU.

A model directory holds exactly three files, written by ``train/train_reader.py``:

- ``model.onnx``: a BERT cross-encoder with inputs ``input_ids``, ``attention_mask``,
  ``token_type_ids`` (int64, [batch, seq]) and one output ``logits`` [batch, labels];
- ``tokenizer.json``: its tokenizer, in the ``tokenizers`` format;
- ``reader.json``: its labels (in output order), ``max_length``, which side of a pair
  is windowed, the sha256 of ``model.onnx`` and the command that rebuilds it.

A file that is missing, unreadable or does not match its sha256 raises
``ModelFileError`` naming the file and how to rebuild it; nothing is ever fetched and
nothing else is ever used in its place.

**Long input rule.** A pair that fits ``max_length`` tokens (special tokens included)
is read whole. One that does not is read as windows: the side named by ``windowed`` is
cut into overlapping token windows (consecutive windows share ``max_length // 4``
tokens), each paired with the other side. The other side is kept whole, unless it alone
takes more than half of ``max_length`` tokens: then only its first ``max_length // 2``
tokens are read. Nothing else is ever cut.

**Aggregation rule.** A windowed pair reports the probabilities of one of its windows:
the window whose probability of the positive label (``entailment`` when the labels have
it, else the last label) is highest. Exception: when the labels hold ``entailment`` and
``contradiction`` and some window's contradiction exceeds every window's entailment,
the window with the highest contradiction is reported instead (a contradiction stated
anywhere in a passage is not hidden by the windows that merely lack the fact).

    >>> model = CrossEncoder("src/tether/readers/models/support")     # doctest: +SKIP
    >>> model.predict([("Revenue rose to 4.1m in 2026.", "Revenue rose.")])  # doctest: +SKIP
    [(0.93, 0.05, 0.02)]
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError, InputError
from ..workers import default_workers
from .modelfiles import (
    MODEL,
    READER,
    TOKENIZER,
    broken,
    checked_session,
    load_tokenizer,
    pad_id,
    read_reader_json,
    scalar,
)

__all__ = ["CrossEncoder", "ReaderInfo", "Window", "padded_batches", "speaking_window"]

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
MAX_THREADS = 4


@dataclass(frozen=True, slots=True)
class ReaderInfo:
    """What ``reader.json`` says about the model beside it."""

    name: str
    labels: tuple[str, ...]
    max_length: int
    sha256: str
    rebuild: str
    first: str = "first"
    second: str = "second"
    windowed: Literal["first", "second"] = "second"
    trained: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def positive(self) -> str:
        """The label windows are ranked by: ``entailment`` if present, else the last."""
        return "entailment" if "entailment" in self.labels else self.labels[-1]


@dataclass(frozen=True, slots=True)
class Window:
    """One model input: token ids, their segment ids, and the character range of the
    windowed side's text that the window covers (``(0, 0)`` when that side is empty)."""

    ids: tuple[int, ...]
    type_ids: tuple[int, ...]
    span: tuple[int, int]


class CrossEncoder:
    """A cross-encoder read from ``directory``, scoring (first, second) text pairs.

    ``threads`` is onnxruntime's intra-op thread count (default: the cores this process
    may use, at most 4); ``batch_size`` is how many windows run at once: 1 by default,
    because int8 dynamic quantization scales a batch as a whole, so a pair batched with
    others scores a little differently (up to ~0.07) than alone. Loading checks
    every file (``ModelFileError``); ``predict`` is safe to call from several threads.
    """

    def __init__(
        self, directory: str | Path, *, threads: int | None = None, batch_size: int = 1
    ) -> None:
        if batch_size < 1 or (threads is not None and threads < 1):
            raise ConfigError(f"a cross-encoder needs batch_size >= 1 and threads >= 1; "
                              f"got {batch_size} and {threads}")
        self._np = importlib.import_module("numpy")
        self.directory = Path(directory)
        self.info = _read_info(self.directory)
        self.batch_size = batch_size
        self.threads = threads or min(MAX_THREADS, default_workers())
        self._tokenizer = load_tokenizer(self.directory / TOKENIZER, self.info.rebuild)
        self._template = _pair_template(self._tokenizer)
        self._specials = sum(1 for kind, _, _ in self._template if kind == "special")
        if self.info.max_length < 2 * self._specials + 8:
            raise broken(self.directory / READER, self.info.rebuild,
                         f"max_length {self.info.max_length} is too small to read a pair")
        self._pad_id = pad_id(self._tokenizer)
        self._session, self._inputs = _load_session(self.directory / MODEL, self.info, self.threads)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, ...]]:
        """Softmax probabilities in ``info.labels`` order, one tuple per (first, second)
        pair, in the order given. Long pairs follow the module's long input and
        aggregation rules; any text (empty, emoji, control characters) is read."""
        checked = _checked(pairs)
        owners: list[int] = []
        windows: list[Window] = []
        whole = self._tokenizer.encode_batch(checked, add_special_tokens=True)
        for i, (pair, encoded) in enumerate(zip(checked, whole, strict=True)):
            found = self._fitting(encoded) or self._windowed(*pair)
            owners.extend([i] * len(found))
            windows.extend(found)
        per_pair: list[list[tuple[float, ...]]] = [[] for _ in checked]
        for owner, probs in zip(owners, self._infer(windows), strict=True):
            per_pair[owner].append(probs)
        return [self._aggregate(rows) for rows in per_pair]

    def prob(self, pairs: Sequence[tuple[str, str]], label: str) -> list[float]:
        """The probability of ``label`` for each pair (see ``predict``)."""
        if label not in self.info.labels:
            raise ConfigError(f"{self.info.name} has no label {label!r}; "
                              f"its labels are {', '.join(self.info.labels)}")
        k = self.info.labels.index(label)
        return [probs[k] for probs in self.predict(pairs)]

    def windows(self, first: str, second: str) -> list[Window]:
        """The model inputs for one pair: itself when it fits, else its windows."""
        ((first, second),) = _checked([(first, second)])
        whole = self._tokenizer.encode(first, second, add_special_tokens=True)
        return self._fitting(whole) or self._windowed(first, second)

    def _fitting(self, whole: Any) -> list[Window]:
        """The pair as one window when it fits ``max_length``, else nothing."""
        if len(whole.ids) > self.info.max_length:
            return []
        side = 0 if self.info.windowed == "first" else 1
        offsets = [o for o, s in zip(whole.offsets, whole.sequence_ids, strict=True) if s == side]
        span = (offsets[0][0], offsets[-1][1]) if offsets else (0, 0)
        return [Window(tuple(whole.ids), tuple(whole.type_ids), span)]

    def _windowed(self, first: str, second: str) -> list[Window]:
        """Windows of a pair too long to read whole (the module's long input rule)."""
        tok, limit, cut_first = self._tokenizer, self.info.max_length, self.info.windowed == "first"
        cut = tok.encode(first if cut_first else second, add_special_tokens=False)
        kept = tok.encode(second if cut_first else first, add_special_tokens=False)
        kept_ids = list(kept.ids[: limit // 2] if len(kept.ids) > limit // 2 else kept.ids)
        room = limit - self._specials - len(kept_ids)
        step = room - min(limit // 4, room - 1)
        ids, offsets, out = list(cut.ids), cut.offsets, []
        for start in range(0, max(1, len(ids)), step):
            part = ids[start : start + room]
            pair = (part, kept_ids) if cut_first else (kept_ids, part)
            joined, types = self._join(*pair)
            span = (offsets[start][0], offsets[start + len(part) - 1][1]) if part else (0, 0)
            out.append(Window(joined, types, span))
            if start + room >= len(ids):
                break
        return out

    def _join(self, a: list[int], b: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Two id sequences with the tokenizer's special tokens, as its pair template
        places them (read once at load from a processed sample pair)."""
        ids: list[int] = []
        types: list[int] = []
        for kind, value, type_id in self._template:
            part = [value] if kind == "special" else (a if value == 0 else b)
            ids.extend(part)
            types.extend([type_id] * len(part))
        return tuple(ids), tuple(types)

    def _infer(self, windows: Sequence[Window]) -> list[tuple[float, ...]]:
        """Probabilities per window: sorted by length, padded per batch."""
        np = self._np
        out: list[tuple[float, ...]] = [()] * len(windows)
        for chunk, arrays in padded_batches(windows, self.batch_size, self._pad_id, np):
            feed = {name: arrays[name] for name in self._inputs}
            try:
                logits = np.asarray(self._session.run(["logits"], feed)[0], dtype=np.float64)
                if logits.shape != (len(chunk), len(self.info.labels)):
                    raise ValueError(f"logits of shape {logits.shape} for {len(chunk)} windows "
                                     f"and {len(self.info.labels)} labels")
            except Exception as exc:  # noqa: BLE001 - onnxruntime's error types are not public
                problem = " ".join(str(exc).split())[:200]
                raise broken(self.directory / MODEL, self.info.rebuild,
                             f"loaded but failed to run ({problem})") from exc
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs = shifted / shifted.sum(axis=1, keepdims=True)
            for row, k in enumerate(chunk):
                out[k] = tuple(float(p) for p in probs[row])
        return out

    def _aggregate(self, rows: list[tuple[float, ...]]) -> tuple[float, ...]:
        """One pair's probabilities from its windows (the module's aggregation rule)."""
        return rows[speaking_window(rows, self.info)]


def speaking_window(rows: Sequence[tuple[float, ...]], info: ReaderInfo) -> int:
    """Which of one pair's windows speaks for it (the module's aggregation rule): the
    one most likely positive, unless, for support, some window's contradiction exceeds
    every window's entailment; then the most contradicting one."""
    labels = info.labels
    if "entailment" in labels and "contradiction" in labels:
        e, c = labels.index("entailment"), labels.index("contradiction")
        against = max(range(len(rows)), key=lambda i: rows[i][c])
        if rows[against][c] > max(r[e] for r in rows):
            return against
    k = labels.index(info.positive)
    return max(range(len(rows)), key=lambda i: rows[i][k])


def padded_batches(
    windows: Sequence[Any], batch_size: int, pad_id: int, np: Any
) -> Iterator[tuple[list[int], dict[str, Any]]]:
    """The windows (anything with ``ids`` and ``type_ids``) as model inputs: sorted by
    length, so that padding (wasted compute) stays small in each batch, and padded per
    batch. Yields (the windows' indices, the arrays by input name)."""
    order = sorted(range(len(windows)), key=lambda k: len(windows[k].ids))
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        width = max(len(windows[k].ids) for k in chunk)
        arrays = {name: np.zeros((len(chunk), width), dtype=np.int64) for name in INPUTS}
        arrays["input_ids"].fill(pad_id)
        for row, k in enumerate(chunk):
            n = len(windows[k].ids)
            arrays["input_ids"][row, :n] = windows[k].ids
            arrays["attention_mask"][row, :n] = 1
            arrays["token_type_ids"][row, :n] = windows[k].type_ids
        yield chunk, arrays


def _checked(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    checked = []
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, tuple | list) and len(pair) == 2
                and isinstance(pair[0], str) and isinstance(pair[1], str)):
            raise InputError(f"pair {i} is not two strings: {pair!r:.80}")
        checked.append((scalar(pair[0]), scalar(pair[1])))
    return checked


def _pair_template(tokenizer: Any) -> list[tuple[str, int, int]]:
    """Where the tokenizer puts its special tokens around a pair: ("special", id, type)
    and ("sequence", 0 or 1, type) items, in order, read from a processed sample."""
    sample = tokenizer.encode("a", "b", add_special_tokens=True)
    template: list[tuple[str, int, int]] = []
    for token, sequence, type_id in zip(sample.ids, sample.sequence_ids, sample.type_ids, strict=True):
        if sequence is None:
            template.append(("special", int(token), int(type_id)))
        elif not template or template[-1][:2] != ("sequence", sequence):
            template.append(("sequence", int(sequence), int(type_id)))
    return template


def _read_info(directory: Path) -> ReaderInfo:
    path = directory / READER
    raw, rebuild = read_reader_json(directory, f"python train/train_reader.py --task {directory.name}")
    try:
        labels = tuple(raw["labels"])
        info = ReaderInfo(
            name=str(raw["name"]), labels=labels, max_length=int(raw["max_length"]),
            sha256=str(raw["sha256"]).lower(), rebuild=rebuild,
            first=str(raw.get("first", "first")), second=str(raw.get("second", "second")),
            windowed=raw["windowed"], trained=dict(raw.get("trained") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise broken(path, rebuild, f"not a valid reader.json ({type(exc).__name__}: {exc})") from exc
    if (len(labels) < 2 or len(set(labels)) != len(labels) or not all(isinstance(x, str) for x in labels)
            or info.windowed not in ("first", "second") or len(info.sha256) != 64):
        raise broken(path, rebuild, "not a valid reader.json (labels, windowed or sha256)")
    return info


def _load_session(path: Path, info: ReaderInfo, threads: int) -> tuple[Any, tuple[str, ...]]:
    """The checked session, and its inputs once they are a cross-encoder's."""
    session = checked_session(path, info.sha256, info.rebuild, threads)
    inputs = tuple(spec.name for spec in session.get_inputs())
    outputs = {spec.name: spec.shape for spec in session.get_outputs()}
    if "input_ids" not in inputs or set(inputs) - set(INPUTS) or "logits" not in outputs:
        raise broken(path, info.rebuild, f"inputs {list(inputs)} and outputs {list(outputs)} are "
                     f"not a cross-encoder's ({', '.join(INPUTS)} -> logits)")
    width = outputs["logits"][-1] if outputs["logits"] else None
    if isinstance(width, int) and width != len(info.labels):
        raise broken(path, info.rebuild, f"gives {width} logits but {READER} names "
                     f"{len(info.labels)} labels")
    return session, inputs

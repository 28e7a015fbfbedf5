"""An NLI cross-encoder the user supplies as ONNX, run locally as a ``Judge``.

The model directory holds three files, exported from any Hugging Face NLI model:
``model.onnx``, ``tokenizer.json`` (the ``tokenizers`` format) and ``config.json``
(its ``id2label`` says which output is which label). Nothing is ever fetched from
a hub: a directory is read, or a clear error names what is missing in it.

The claim is never truncated. When passage and claim do not fit in ``max_length``
tokens, the passage is cut into overlapping windows, each paired with the whole
claim, and the windows' verdicts are aggregated (see ``_aggregate``).

    >>> judge = OnnxNliJudge("models/nli-deberta-v3-xsmall")      # doctest: +SKIP
    >>> j = judge.judge("Revenue rose to 4.1m in 2026.", "Revenue rose in 2026.")  # doctest: +SKIP
    >>> j.label, j.window                                          # doctest: +SKIP
    ('entailment', (0, 29))

Needs the ``tether[nli]`` extra (onnxruntime, tokenizers, numpy).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError, LimitExceeded, MissingExtra
from ..readers.crossencoder import INPUTS, padded_batches
from .base import LABELS, Judge, Judgement, Label

__all__ = ["EncodedWindow", "OnnxNliJudge"]

_MODEL, _TOKENIZER, _CONFIG = "model.onnx", "tokenizer.json", "config.json"
# Spellings seen in exported NLI configs; anything else (LABEL_0, yes/no) is refused
# because guessing which output means "contradiction" would silently invert verdicts.
_ALIASES: dict[str, Label] = {
    "entailment": "entailment",
    "entails": "entailment",
    "entail": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradicts": "contradiction",
    "contradict": "contradiction",
}


@dataclass(frozen=True, slots=True)
class EncodedWindow:
    """One model input: a premise window paired with the whole claim.

    ``span`` is the character range of the premise the window covers.
    """

    ids: list[int]
    type_ids: list[int]
    span: tuple[int, int]


class OnnxNliJudge(Judge):
    """A ``Judge`` backed by a local ONNX NLI cross-encoder.

    ``max_length`` is the model's input limit in tokens; ``stride`` is how many
    premise tokens consecutive windows share (so a fact cut by one window edge is
    whole in the next); ``batch_size`` is how many windows go to the model at once.

        >>> judge = OnnxNliJudge("models/nli", max_length=256)         # doctest: +SKIP
        >>> judge.judge_many([(passage, claim), (passage, other)])     # doctest: +SKIP
        [Judgement(label='entailment', ...), Judgement(label='contradiction', ...)]
    """

    def __init__(
        self,
        model_dir: str | Path,
        *,
        max_length: int = 512,
        stride: int = 128,
        batch_size: int = 16,
        providers: Sequence[str] | None = None,
    ) -> None:
        ort, tokenizers, self._np = _import_extras()
        if max_length < 4 or stride < 0 or batch_size < 1:
            raise ConfigError(
                f"NLI judge needs max_length >= 4, stride >= 0 and batch_size >= 1; "
                f"got {max_length}, {stride}, {batch_size}"
            )
        self.model_dir = Path(model_dir)
        self.max_length, self.stride, self.batch_size = max_length, stride, batch_size
        _check_dir(self.model_dir)
        self.checker = f"nli:{self.model_dir.resolve().name}"
        self._labels = _read_labels(self.model_dir / _CONFIG)
        self._tokenizer = _load_tokenizer(tokenizers, self.model_dir / _TOKENIZER)
        processor = self._tokenizer.post_processor
        self._specials = int(processor.num_special_tokens_to_add(True)) if processor else 0
        self._pad_id = _pad_id(self._tokenizer)
        self._session, self._inputs, self._output = _load_session(
            ort, self.model_dir / _MODEL, providers or ["CPUExecutionProvider"], len(self._labels)
        )

    @property
    def labels(self) -> tuple[Label, ...]:
        """The label of each model output, in output order (from ``id2label``)."""
        return tuple(self._labels)

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        return self.judge_many([(premise, hypothesis)])[0]

    def judge_many(self, pairs: Iterable[tuple[str, str]]) -> list[Judgement]:
        """Judge every pair; windows of all pairs share batches.

        A pair that cannot be judged (claim too long, inference failure) gets an
        error judgement; the others are unaffected.
        """
        pairs = list(pairs)
        results: list[Judgement | None] = [None] * len(pairs)
        owners: list[int] = []
        windows: list[EncodedWindow] = []
        for i, (premise, hypothesis) in enumerate(pairs):
            try:
                encoded = self.encode_windows(premise, hypothesis)
            except LimitExceeded as exc:
                results[i] = Judgement.failed(self.checker, str(exc))
                continue
            owners.extend([i] * len(encoded))
            windows.extend(encoded)
        per_pair: dict[int, list[tuple[EncodedWindow, Any]]] = {}
        for owner, window, probs in zip(owners, windows, self._infer(windows), strict=True):
            per_pair.setdefault(owner, []).append((window, probs))
        for i, rows in per_pair.items():
            errors = [p for _, p in rows if isinstance(p, str)]
            results[i] = (
                Judgement.failed(self.checker, errors[0]) if errors else self._aggregate(rows)
            )
        # Every pair has at least one window, so each result is set by now.
        return [r or Judgement.failed(self.checker, "not judged") for r in results]

    def encode_windows(self, premise: str, hypothesis: str) -> list[EncodedWindow]:
        """The model inputs for one pair: premise windows, each with the whole claim.

        Raises ``LimitExceeded`` when the claim alone leaves no room for premise
        tokens: truncating it would judge a different sentence.
        """
        tok = self._tokenizer
        claim = tok.encode(hypothesis, add_special_tokens=False)
        budget = self.max_length - self._specials - len(claim.ids)
        if budget < 1:
            raise LimitExceeded(
                f"claim is {len(claim.ids)} tokens; with {self._specials} special tokens "
                f"it leaves no room for the passage within max_length={self.max_length}",
                hint="the claim is never truncated: split the sentence or use a longer max_length",
            )
        passage = tok.encode(premise, add_special_tokens=False)
        # Overlap at most half a window, so each window still advances the premise.
        passage.truncate(budget, stride=min(self.stride, budget // 2))
        windows = []
        for part in [passage, *passage.overflowing]:
            pair = tok.post_process(part, claim, add_special_tokens=True)
            span = (part.offsets[0][0], part.offsets[-1][1]) if part.offsets else (0, 0)
            windows.append(EncodedWindow(list(pair.ids), list(pair.type_ids), span))
        return windows

    def _infer(self, windows: Sequence[EncodedWindow]) -> list[Any]:
        """Probabilities (one array per window), or an error message per window."""
        np = self._np
        out: list[Any] = [None] * len(windows)
        for chunk, arrays in padded_batches(windows, self.batch_size, self._pad_id, np):
            # Feed only what the model declares: onnxruntime rejects unknown inputs,
            # and RoBERTa/DeBERTa exports have no token_type_ids.
            feed = {name: arrays[name].astype(dtype) for name, dtype in self._inputs.items()}
            try:
                logits = np.asarray(self._session.run([self._output], feed)[0], dtype=np.float64)
                if logits.shape != (len(chunk), len(self._labels)):
                    raise ValueError(
                        f"output shape {logits.shape}, expected {(len(chunk), len(self._labels))}"
                    )
            # onnxruntime raises its own exception types (not exported stably); any
            # failure here becomes an error judgement, so the lexical outcome stands.
            except Exception as exc:  # noqa: BLE001
                for k in chunk:
                    out[k] = f"inference failed: {exc}"
                continue
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs = shifted / shifted.sum(axis=1, keepdims=True)
            for row, k in enumerate(chunk):
                out[k] = probs[row]
        return out

    def _aggregate(self, rows: list[tuple[EncodedWindow, Any]]) -> Judgement:
        """One verdict from the windows of a pair.

        A window "says" the label it gives the highest probability. Entailment
        wins if any window says it, and the window with the highest entailment
        probability is recorded; else contradiction if any window says it (the
        most contradicting window); else neutral (the most neutral window).
        Why this order: a window that lacks the fact can only be neutral (or,
        for some models, spuriously contradicting on partial context), while
        entailment needs the window to state the claim, so it is the most
        specific signal. The lexical checks run over the whole passage anyway,
        and ``combine`` never lets a judge overturn a lexical contradiction.
        """
        probs: list[dict[str, float]] = [
            {label: float(p[k]) for k, label in enumerate(self._labels)} for _, p in rows
        ]
        said = [max(d, key=lambda label: d[label]) for d in probs]
        precedence: tuple[Label, ...] = ("entailment", "contradiction", "neutral")
        for label in precedence:
            hits = [k for k, s in enumerate(said) if s == label]
            if hits:
                best = max(hits, key=lambda k: probs[k][label])
                return Judgement(label, probs[best], self.checker, rows[best][0].span)
        raise AssertionError("unreachable: every window says some label")


def _import_extras() -> tuple[Any, Any, Any]:
    try:
        ort = importlib.import_module("onnxruntime")
        tokenizers = importlib.import_module("tokenizers")
        np = importlib.import_module("numpy")
    except ImportError as exc:
        raise MissingExtra("NLI judge", "nli") from exc
    return ort, tokenizers, np


def _check_dir(model_dir: Path) -> None:
    if not model_dir.is_dir():
        raise ConfigError(
            f"NLI model directory {model_dir} does not exist or is not a directory",
            hint=f"point it at a local folder holding {_MODEL}, {_TOKENIZER} and {_CONFIG}",
        )
    missing = [name for name in (_MODEL, _TOKENIZER, _CONFIG) if not (model_dir / name).is_file()]
    if missing:
        raise ConfigError(
            f"NLI model directory {model_dir} lacks {', '.join(missing)}",
            hint="export the model with its tokenizer.json and config.json into that folder",
        )


def _read_labels(path: Path) -> list[Label]:
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not readable JSON: {exc}") from exc
    id2label = config.get("id2label") if isinstance(config, dict) else None
    hint = (
        'set "id2label" in config.json to the model\'s output order, e.g. '
        '{"0": "entailment", "1": "neutral", "2": "contradiction"}'
    )
    if not isinstance(id2label, dict) or not id2label:
        raise InputError(f"{path} has no id2label mapping, so outputs cannot be named", hint=hint)
    try:
        by_index = {int(key): str(value) for key, value in id2label.items()}
    except ValueError as exc:
        raise InputError(f"{path}: id2label keys must be output indices: {exc}", hint=hint) from exc
    names = [by_index.get(i, "") for i in range(len(by_index))]
    labels = [_ALIASES.get(name.strip().lower()) for name in names]
    if sorted(label or "" for label in labels) != sorted(LABELS):
        raise InputError(
            f"{path}: id2label {dict(sorted(by_index.items()))} cannot be mapped to "
            "entailment/neutral/contradiction (generic names such as LABEL_0 do not say which "
            "output is which)",
            hint=hint,
        )
    return [label for label in labels if label is not None]


def _load_tokenizer(tokenizers: Any, path: Path) -> Any:
    try:
        tokenizer = tokenizers.Tokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - the Rust binding raises bare Exception
        raise InputError(f"{path}: not a readable tokenizers file: {exc}") from exc
    # Windowing is done here, so the file's own truncation/padding must not cut the
    # claim or pad to a fixed width behind our back.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _pad_id(tokenizer: Any) -> int:
    for token in ("[PAD]", "<pad>"):
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    # Padded positions carry attention_mask 0, so any id is inert there.
    return 0


def _load_session(
    ort: Any, path: Path, providers: Sequence[str], n_labels: int
) -> tuple[Any, dict[str, str], str]:
    try:
        session = ort.InferenceSession(str(path), providers=list(providers))
    except Exception as exc:  # noqa: BLE001 - onnxruntime's error types are not public
        raise InputError(f"{path}: not a loadable ONNX model: {exc}") from exc
    inputs: dict[str, str] = {}
    for spec in session.get_inputs():
        if spec.name not in INPUTS:
            raise InputError(
                f"{path} declares input {spec.name!r}; an NLI judge can feed only "
                f"{', '.join(INPUTS)}"
            )
        inputs[spec.name] = "int32" if spec.type == "tensor(int32)" else "int64"
    if "input_ids" not in inputs:
        raise InputError(f"{path} has no input_ids input; is it a text model?")
    output = session.get_outputs()[0]
    last = output.shape[-1] if output.shape else None
    if isinstance(last, int) and last != n_labels:
        raise InputError(
            f"{path} outputs {last} scores per pair but config.json names {n_labels} labels"
        )
    return session, inputs, output.name

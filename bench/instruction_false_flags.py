"""False flags of ``tether.instructions`` on real third-party documentation.

    python bench/instruction_false_flags.py [--man 300] [--show 20] [--json out.json]

Ordinary manuals contain no instruction aimed at an AI assistant, so every sentence
that ``is_instruction_like`` (or that ``detect`` flags at all) is a false flag. The
documents are what this machine has installed, read in place:

- man pages of section 1, rendered with ``man -P cat`` (an evenly spaced sample of
  ``--man`` pages, sorted by name, so the same machine gives the same sample);
- everything under /usr/share/doc that is HTML, Markdown or text (``.gz`` included:
  README, NEWS, FAQ, changelogs are skipped as lists of commits, not prose);
- the Rust book (rustup's ``share/doc/rust/html/book``) and Python's own docs, where
  installed.

HTML goes through Tether's HTML extractor, Markdown and text are read as they are;
sentences are cut by ``tether.text.sentences``. Printed: files, sentences, flagged
files, flagged sentences per 1,000, and the same per rule (``explain``), with the
flagged sentences themselves (``--show``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tether.config import Settings
from tether.ingest.extract import extract_bytes
from tether.instructions.detect import detect, explain, is_instruction_like
from tether.text.sentences import split_sentences

DOC = Path("/usr/share/doc")
SKIP_NAMES = ("changelog", "copyright")


def man_pages(count: int) -> Iterator[tuple[str, str]]:
    names = sorted(p.name.split(".")[0] for p in Path("/usr/share/man/man1").iterdir())
    names = sorted(set(names))
    if not names or count <= 0:
        return
    step = max(1, len(names) // count)
    env = {**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": "0"}
    for name in names[::step][:count]:
        try:
            out = subprocess.run(["man", "-P", "cat", "1", name], capture_output=True,
                                 env=env, timeout=20, check=False)
        except subprocess.TimeoutExpired:
            continue
        text = out.stdout.decode("utf-8", "replace")
        if text.strip():
            yield f"man:{name}", text


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _kind(path: Path) -> str | None:
    name = path.name.lower().removesuffix(".gz")
    if any(name.startswith(s) for s in SKIP_NAMES):
        return None
    if name.endswith((".html", ".htm")):
        return "text/html"
    if name.endswith((".md", ".markdown")):
        return "text/markdown"
    if name.endswith(".txt") or name.split(".")[0] in {"readme", "news", "faq", "todo", "authors",
                                                        "thanks", "install", "bugs"}:
        return "text/plain"
    return None


def doc_files(roots: list[Path]) -> Iterator[tuple[str, str]]:
    settings = Settings()
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            kind = _kind(path) if path.is_file() else None
            if kind is None:
                continue
            try:
                data = _read(path)
                if kind == "text/html":
                    text = extract_bytes(data, media_type=kind, settings=settings,
                                         name=str(path)).text
                else:
                    text = data.decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - a file the bench cannot read is skipped
                continue
            if text.strip():
                yield str(path), text


def python_docs() -> list[Path]:
    found = [Path(sys.prefix) / "share" / "doc", Path("/usr/share/doc/python3-doc")]
    return [p for p in found if p.is_dir()]


def rust_book() -> list[Path]:
    return sorted(Path.home().glob(".rustup/toolchains/stable-*/share/doc/rust/html/book"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--man", type=int, default=300, help="man pages to sample (0: none)")
    ap.add_argument("--show", type=int, default=20, help="flagged sentences to print")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    started = time.perf_counter()
    sources: dict[str, Iterator[tuple[str, str]]] = {
        "man pages": man_pages(args.man),
        "/usr/share/doc": doc_files([DOC]),
        "rust book": doc_files(rust_book()),
        "python docs": doc_files(python_docs()),
    }
    total = Counter[str]()
    by_rule = Counter[str]()
    flagged_files: dict[str, set[str]] = {}
    shown: list[tuple[str, str, list[str]]] = []
    for label, items in sources.items():
        for name, text in items:
            total[f"{label} files"] += 1
            file_hit = bool(detect(text))
            for sentence in split_sentences(text):
                total[f"{label} sentences"] += 1
                total["sentences"] += 1
                rules = list(explain(sentence))
                if not rules:
                    continue
                total["flagged"] += 1
                by_rule.update(rules)
                file_hit = True
                if is_instruction_like(sentence):
                    total["instruction-like"] += 1
                    shown.append((name, sentence, rules))
            if file_hit:
                flagged_files.setdefault(label, set()).add(name)
            total["files"] += 1
    n = total["sentences"] or 1
    print(f"{total['files']} files, {total['sentences']} sentences "
          f"({time.perf_counter() - started:.0f} s)")
    for label in sources:
        files = total[f"{label} files"]
        print(f"  {label:16s} {files:5d} files {total[f'{label} sentences']:7d} sentences, "
              f"{len(flagged_files.get(label, ())):3d} files flagged")
    print(f"instruction-like sentences: {total['instruction-like']} "
          f"= {1000 * total['instruction-like'] / n:.3f} per 1,000")
    print(f"flagged sentences (any rule, topic rules too): {total['flagged']} "
          f"= {1000 * total['flagged'] / n:.3f} per 1,000; by rule:")
    for rule, count in by_rule.most_common():
        print(f"  {rule:34s} {count:5d}  {1000 * count / n:.3f} per 1,000")
    for name, sentence, rules in shown[: args.show]:
        print(f"- {name}: [{', '.join(rules)}] {sentence[:200]!r}")
    if args.json:
        args.json.write_text(json.dumps({
            "files": total["files"], "sentences": total["sentences"],
            "instruction_like": total["instruction-like"], "flagged": total["flagged"],
            "per_1000": 1000 * total["instruction-like"] / n,
            "by_rule": dict(by_rule),
            "flagged_files": {k: sorted(v) for k, v in flagged_files.items()},
            "instruction_like_sentences": [{"file": f, "sentence": s, "rules": r}
                                           for f, s, r in shown],
        }, indent=1))


if __name__ == "__main__":
    main()

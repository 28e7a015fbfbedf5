"""Recall and false-flag rate of ``tether.injection`` on public data.

    python bench/injection_recall.py [--data ../shared/data] [--show 10]

Recall: the Giskard direct prompt injections, and the BIPIA indirect-injection
instructions both alone and planted in the middle of a clean SQuAD paragraph (how they
would arrive inside a document). False flags: sentences of clean text (SQuAD 2.0
"Normans" contexts, HaluEval knowledge, WiCE cited web pages, HealthVer abstracts),
which contain no injection, so every flag there is a false one. The data is read in
place (see shared/data/README.md), never copied.

BIPIA's first five categories are ordinary tasks ("What is the capital of Brazil?")
that only become an attack by where they are planted; no pattern detector can tell
them from document content, so recall is printed per category and also without them.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from tether.injection import detect, is_instruction_like

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data"
TASK_CATEGORIES = {
    "Information Retrieval",
    "Content Creation",
    "Learning and Tutoring",
    "Language Translation",
    "Programming Help",
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“])")


def sentences(texts: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for text in texts:
        for sentence in _SENTENCE_END.split(text):
            sentence = sentence.strip()
            if len(sentence) >= 15 and sentence not in seen:
                seen.add(sentence)
                out.append(sentence)
    return out


def squad_paragraphs(data: Path) -> list[str]:
    squad = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    return [p["context"] for article in squad["data"] for p in article["paragraphs"]]


def clean_corpora(data: Path) -> dict[str, list[str]]:
    halueval = [
        json.loads(line)["knowledge"]
        for line in (data / "halueval-qa-dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    wice: list[str] = []
    for line in (data / "wice_claim_dev.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            wice.extend(json.loads(line)["evidence"])
    with (data / "healthver_dev.csv").open(encoding="utf-8", newline="") as handle:
        healthver = [row["evidence"] for row in csv.DictReader(handle)]
    return {
        "squad2-normans": sentences(squad_paragraphs(data)),
        "halueval-knowledge": sentences(halueval),
        "wice-web-pages": sentences(wice),
        "healthver-abstracts": sentences(healthver),
    }


def plant(paragraph: str, attack: str) -> str:
    parts = _SENTENCE_END.split(paragraph)
    middle = len(parts) // 2
    return " ".join([*parts[:middle], attack, *parts[middle:]])


def pct(hits: int, total: int) -> str:
    return f"{hits}/{total} = {100.0 * hits / total:7.3f}%" if total else "0/0 (no data)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--show", type=int, default=10, help="false flags to print per corpus")
    args = parser.parse_args(argv)
    data: Path = args.data
    if not (data / "giskard_prompt_injections.csv").is_file():
        print(f"data not found under {data} (pass --data)", file=sys.stderr)
        return 2

    print("== recall ==")
    with (data / "giskard_prompt_injections.csv").open(encoding="utf-8", newline="") as handle:
        giskard = [row["prompt"] for row in csv.DictReader(handle)]
    hits = sum(bool(detect(p)) for p in giskard)
    print(f"giskard direct injections      detect: {pct(hits, len(giskard))}")

    bipia = json.loads((data / "bipia_text_attack_train.json").read_text(encoding="utf-8"))
    paragraphs = squad_paragraphs(data)
    print(f"\nbipia indirect injections, by category (alone | planted in a SQuAD paragraph "
          f"| is_instruction_like)")
    totals = {"all": [0, 0, 0, 0], "assistant-directed": [0, 0, 0, 0]}
    planted_total = 0
    for category, attacks in bipia.items():
        alone = sum(bool(detect(a)) for a in attacks)
        planted = 0
        for i, attack in enumerate(attacks):
            planted += bool(detect(plant(paragraphs[i % len(paragraphs)], attack)))
        sentence_level = sum(is_instruction_like(a) for a in attacks)
        planted_total += len(attacks)
        print(f"  {category:28s} {alone}/{len(attacks)} | {planted}/{len(attacks)} | "
              f"{sentence_level}/{len(attacks)}")
        keys = ["all"] if category in TASK_CATEGORIES else ["all", "assistant-directed"]
        for key in keys:
            totals[key][0] += alone
            totals[key][1] += planted
            totals[key][2] += sentence_level
            totals[key][3] += len(attacks)
    for key, (alone, planted, sentence_level, n) in totals.items():
        print(f"bipia {key:24s} detect alone: {pct(alone, n)}   planted: {pct(planted, n)}   "
              f"is_instruction_like: {pct(sentence_level, n)}")

    print("\n== false flags on clean text (every flag is false) ==")
    all_sentences: list[str] = []
    for name, corpus in clean_corpora(data).items():
        all_sentences.extend(corpus)
        flagged = [(s, detect(s)) for s in corpus]
        flagged = [(s, codes) for s, codes in flagged if codes]
        instruction = sum(is_instruction_like(s) for s in corpus)
        print(f"{name:22s} sentences {len(corpus):6d}   detect: {pct(len(flagged), len(corpus))}"
              f"   is_instruction_like: {pct(instruction, len(corpus))}")
        for sentence, codes in flagged[: args.show]:
            print(f"    {','.join(codes):28s} {sentence[:110]!r}")
    flagged_paragraphs = sum(bool(detect(p)) for p in paragraphs)
    print(f"squad2-normans paragraphs     detect: {pct(flagged_paragraphs, len(paragraphs))}")

    print("\n== speed ==")
    text = "\n".join(all_sentences)
    passages = [text[i : i + 600] for i in range(0, len(text), 600)]  # ingest's unit
    baseline = re.compile(r"ignore (?:all )?previous instructions", re.IGNORECASE)
    start = time.perf_counter()
    for passage in passages:
        baseline.search(passage)
    base_s = time.perf_counter() - start
    start = time.perf_counter()
    for passage in passages:
        detect(passage)
    detect_s = time.perf_counter() - start
    start = time.perf_counter()
    detect(text)
    whole_s = time.perf_counter() - start
    mb = len(text) / 1e6
    print(f"detect on {len(passages)} passages of 600 chars ({mb:.1f} M chars): {detect_s:.2f} s "
          f"= {mb / detect_s:.1f} M chars/s, {detect_s / base_s:.0f}x a one-regex baseline "
          f"({base_s * 1000:.0f} ms)")
    print(f"detect on the same text as one string: {whole_s:.2f} s = {mb / whole_s:.1f} M chars/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

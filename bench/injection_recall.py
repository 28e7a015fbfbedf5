"""Recall and false-flag rate of ``tether.instructions`` on public data.

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

from tether.instructions.detect import detect, is_instruction_like

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


CARRIERS = ("prose", "markdown-comment", "html-comment", "html-hidden", "pdf-text")


def _carrier(kind: str, paragraph: str, attack: str, label: str) -> tuple[str, bytes]:
    """A document of ``kind`` holding ``paragraph`` with ``attack`` planted ("": clean).

    Each document gets its own heading ``label``: once extraction drops a comment, two
    copies of one paragraph would have identical text, which the store cannot hold
    twice today (passage ids derive from the version, not the document).
    """
    import html

    heading = f"Notes {label}"

    parts = _SENTENCE_END.split(paragraph)
    head, tail = " ".join(parts[: len(parts) // 2]), " ".join(parts[len(parts) // 2 :])
    if kind == "prose":
        return ".txt", " ".join(x for x in (head, attack, tail) if x).encode()
    if kind == "markdown-comment":
        note = f"\n\n<!-- {attack} -->\n\n" if attack else "\n\n"
        return ".md", f"# {heading}\n\n{head}{note}{tail}\n".encode()
    if kind in ("html-comment", "html-hidden"):
        esc = html.escape(attack)
        hidden = "" if not attack else (
            f"<!-- {esc} -->" if kind == "html-comment" else f'<div style="display:none">{esc}</div>')
        body = (f"<article><h1>{heading}</h1><p>{html.escape(head)}</p>{hidden}"
                f"<p>{html.escape(tail)}</p></article>")
        return ".html", f"<html><head><title>{heading}</title></head><body>{body}</body></html>".encode()
    from fpdf import FPDF  # test extra

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for block in (heading, head, attack, tail):
        if block:
            pdf.multi_cell(0, 6, block.encode("latin-1", "replace").decode("latin-1"),
                           new_x="LMARGIN", new_y="NEXT")
    return ".pdf", bytes(pdf.output())


def planted_in_documents(bipia: dict[str, list[str]], paragraphs: list[str]) -> None:
    """Each BIPIA attack planted in a SQuAD paragraph, written as each carrier format,
    ingested, and scored with ``tether.evaluate.detection_report``; the same paragraphs
    without a plant give the false-flag rate."""
    import tempfile

    from tether import Tether
    from tether.config import Settings
    from tether.evaluate import detection_report, load_labels

    try:
        import fpdf  # noqa: F401
        carriers = CARRIERS
    except ImportError:
        carriers = CARRIERS[:-1]
        print("  (fpdf2 not installed: no PDF carrier; pip install -e '.[test]')")
    attacks = [(c, a) for c, items in bipia.items() for a in items]
    for kind in carriers:
        with tempfile.TemporaryDirectory(prefix="tether-inj-") as tmp:
            root = Path(tmp)
            entries = []
            for i, (category, attack) in enumerate(attacks):
                suffix, data = _carrier(kind, paragraphs[i % len(paragraphs)], attack, f"a{i}")
                (root / f"a{i:03d}{suffix}").write_bytes(data)
                text = attack if kind != "pdf-text" else attack.encode("latin-1", "replace").decode("latin-1")
                entries.append({"path": f"a{i:03d}{suffix}", "planted": [{"text": text, "where": category}]})
            for i, paragraph in enumerate(paragraphs):
                suffix, data = _carrier(kind, paragraph, "", f"c{i}")
                (root / f"c{i:03d}{suffix}").write_bytes(data)
                entries.append({"path": f"c{i:03d}{suffix}"})
            (root / "manifest.json").write_text(json.dumps({"documents": entries}))
            with Tether(root / "t.db", settings=Settings()) as t:
                results = t.ingest(*sorted(p for p in root.iterdir() if p.suffix != ".json"))
                flags = {r.doc_id: r.flags for r in results if r.doc_id}
                report = detection_report(t.store, load_labels(root / "manifest.json"), flags)
        assert report is not None
        rows = report["instructions"]
        directed = [r for r in rows if r["where"] not in TASK_CATEGORIES]
        print(f"  {kind:17s} recall all {pct(sum(r['detected'] for r in rows), len(rows))}   "
              f"assistant-directed {pct(sum(r['detected'] for r in directed), len(directed))}   "
              f"clean documents flagged {pct(report['false_flag_rate']['count'], report['false_flag_rate']['n'])}")


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

    print("\n== planted in documents of each format, through ingest (as tether eval measures) ==")
    planted_in_documents(bipia, paragraphs)

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

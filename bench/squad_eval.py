"""The evaluation on SQuAD 2.0 dev ("Normans"): each paragraph one document.

    python bench/squad_eval.py [--data ../shared/data] [--html report.html] [--keep DIR]

The data is read in place and converted in a temporary folder (never committed): one
.txt file per paragraph with a manifest (source ``squad2-dev:Normans:pNN``), and a
golden file where an answerable question expects any of its gold answers
(``expect_contains``, case-insensitive) and its paragraph (``expect_docs``), and an
unanswerable one is right when refused. ``--keep DIR`` leaves the files there, so the
same run can be repeated with the CLI:

    tether ingest DIR/corpus --manifest DIR/corpus/manifest.json --db DIR/squad.db
    tether eval DIR/golden.jsonl --db DIR/squad.db --manifest DIR/corpus/manifest.json --html r.html

Baselines measured in the same run: "always refuse" and "first sentence of the top
passage" for accuracy; retrieval alone for latency.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tether import Tether
from tether.cli.eval import summary_text
from tether.config import load_settings
from tether.evaluate import load_golden, load_labels, run_eval
from tether.text.fold import loose_fold as fold
from tether.evaluate.report import render_html
from tether.text.sentences import split_sentences
from tether.ingest.files import Metadata, load_manifest
from tether.retrieve.search import retrieve

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data"


def convert(data: Path, out: Path) -> tuple[Path, Path]:
    """Write corpus/pNN.txt + manifest.json and golden.jsonl under ``out``."""
    squad = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    documents, lines = [], []
    for article in squad["data"]:
        for i, paragraph in enumerate(article["paragraphs"]):
            name = f"p{i:02d}.txt"
            (corpus / name).write_text(paragraph["context"], encoding="utf-8")
            documents.append({
                "path": name, "source": f"squad2-dev:{article['title']}:p{i:02d}",
                "title": f"{article['title']} paragraph {i}", "license": "CC BY-SA 4.0",
                "fetched_at": "2018-06-11",
            })
            for qa in paragraph["qas"]:
                answers = sorted({a["text"] for a in qa["answers"]})
                line: dict[str, object] = {"id": qa["id"], "question": qa["question"],
                                           "answerable": not qa["is_impossible"]}
                if answers:
                    line["expect_contains"] = answers
                    line["expect_docs"] = [name]
                lines.append(json.dumps(line, ensure_ascii=False))
    manifest = corpus / "manifest.json"
    manifest.write_text(json.dumps({"documents": documents}, indent=1), encoding="utf-8")
    golden = out / "golden.jsonl"
    golden.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest, golden


def baselines(tether: Tether, golden: Path) -> dict[str, float]:
    items = load_golden(golden)
    scored = [i for i in items if i.expect_contains or not i.answerable]
    refuse = sum(not i.answerable for i in scored) / len(scored)
    right = 0
    started = time.perf_counter()
    for item in scored:
        hits = retrieve(tether.store, item.question, k=tether.settings.top_k)
        first = split_sentences(hits[0].passage.text)[0] if hits else ""
        if item.answerable:
            right += bool(first) and any(fold(e) in fold(first) for e in item.expect_contains)
    retrieval_ms = (time.perf_counter() - started) * 1000 / len(scored)
    return {"always_refuse": refuse, "top_sentence": right / len(scored),
            "retrieval_ms": retrieval_ms}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--html", type=Path, help="write the HTML report here")
    parser.add_argument("--json", type=Path, help="write the JSON figures here")
    parser.add_argument("--keep", type=Path, help="convert into this folder and keep it")
    args = parser.parse_args(argv)
    if not (args.data / "squad2-dev-normans.json").is_file():
        print(f"data not found under {args.data} (pass --data)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tether-squad-") as tmp:
        out = args.keep or Path(tmp)
        manifest, golden = convert(args.data, out)
        entries = load_manifest(manifest)
        with Tether(out / "squad.db", settings=load_settings()) as tether:
            for path, entry in sorted(entries.items()):
                tether.ingest(path, meta=Metadata().merged(entry))
            result = run_eval(tether, load_golden(golden), labels=load_labels(manifest),
                              name="SQuAD 2.0 dev (Normans)")
            base = baselines(tether, golden)
    print(summary_text(result))
    s = result.summary
    overall = s["overall_accuracy"]["value"] or 0.0
    print(f"\nbaselines (same run, same {s['overall_accuracy']['n']} scored questions):")
    print(f"  overall accuracy {overall:.3f} vs always-refuse {base['always_refuse']:.3f} "
          f"(ratio {overall / base['always_refuse']:.2f}) vs first sentence of the top passage "
          f"{base['top_sentence']:.3f} (ratio {overall / max(base['top_sentence'], 1e-9):.2f})")
    p50 = s["latency_ms"]["p50"] or 0.0
    print(f"  latency p50 {p50:.1f} ms vs retrieval alone {base['retrieval_ms']:.1f} ms/question "
          f"(ratio {p50 / base['retrieval_ms']:.1f})")
    if args.html:
        args.html.write_text(render_html(result, title="Tether evaluation: SQuAD 2.0 dev (Normans)"),
                             encoding="utf-8")
        print(f"report: {args.html}")
    if args.json:
        args.json.write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")
    failures = result.gate_failures()
    for failure in failures:
        print(f"invariant broken: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Answers on real third-party documentation: answer accuracy, abstain recall, ingest speed.

    python bench/realdocs.py [--man 120] [--golden bench/realdocs_golden.json]
                             [--no-demo] [--no-squad] [--json out.json] [--keep DIR]
                             [--judge gguf:PATH [--judge-threads N]]

The corpus is what a Debian machine has installed, copied (``.gz`` decompressed,
man pages rendered) into a temporary folder and ingested through ``Tether.ingest``,
the library's own file path:

- man pages of section 1, rendered with ``MANWIDTH=80 man -P cat`` to ``NAME.1.txt``:
  the pages the golden questions name, then an evenly spaced sample of
  /usr/share/man/man1 (sorted by name) up to ``--man`` pages;
- HTML: Node.js's API docs (/usr/share/doc/nodejs/api, ``all.html`` included: it
  repeats every other page), Valgrind's manual (/usr/share/doc/valgrind/html) and,
  where rustup installed it, the Rust book's chapters;
- Markdown: pip's docs (/usr/share/doc/python3-pip/html) and the READMEs other
  packages install under /usr/share/doc (not Node's ``.md`` twins of its HTML, not
  NEWS, changelogs, codes of conduct);
- PDF: every ``.pdf`` under /usr/share/doc.

Each golden question is asked once with the default generator (extractive, no
model) and the default gates. An answerable one counts as answered when a shown
sentence contains one of its expected substrings (case and spacing folded); an
unanswerable one (``expect: null``) counts when Tether refuses. Printed: what was
found per format, per-question results, answer accuracy, abstain recall, ingest
MB/s, then the demo suite (``tether eval --suite demo``) and SQuAD "Normans"
(``bench/squad_abstain.py``) in the same run, so "no worse than before" is checked
beside the figures it guards.

With ``--judge`` every question is asked a second time on the same store with that
model judge (the reader, ``gguf:PATH``, default thresholds unless the store holds a
calibration), and both sets of figures are printed with the p50/p95 ask time of each.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tether.config import load_settings
from tether.facade import Tether
from tether.records import Answer

HERE = Path(__file__).resolve().parent
DOC = Path("/usr/share/doc")
MAN1 = Path("/usr/share/man/man1")
RUST_BOOKS = sorted(Path.home().glob(".rustup/toolchains/stable-*/share/doc/rust/html/book"))
SKIP_MD = re.compile(r"news|changelog|code_of_conduct|contributing|translators|todo|"
                     r"acknowledgements|testing", re.IGNORECASE)


def _man_names(named: list[str], count: int) -> list[str]:
    # One page per command, not per subcommand: gcloud alone installs ~15,000
    # "gcloud_..." pages, which would be most of an even sample.
    names = sorted({p.name.split(".")[0] for p in MAN1.iterdir()}) if MAN1.is_dir() else []
    names = [n for n in names if "_" not in n]
    chosen = [n for n in named if n in names]
    step = max(1, len(names) // max(1, count))
    for name in names[::step]:
        if len(chosen) >= count:
            break
        if name not in chosen:
            chosen.append(name)
    return chosen


def render_man(dest: Path, names: list[str]) -> int:
    # man-db keeps overstrike for any value of MAN_KEEP_FORMATTING, even "0": unset it.
    env = {k: v for k, v in os.environ.items() if k != "MAN_KEEP_FORMATTING"}
    env["MANWIDTH"] = "80"
    dest.mkdir(parents=True, exist_ok=True)
    done = 0
    for name in names:
        try:
            out = subprocess.run(["man", "-P", "cat", "1", name], capture_output=True,
                                 env=env, timeout=30, check=False)
        except subprocess.TimeoutExpired:
            continue
        if out.returncode == 0 and out.stdout.strip():
            (dest / f"{name}.1.txt").write_bytes(out.stdout)
            done += 1
    return done


def _copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.suffix == ".gz":
        dest.write_bytes(gzip.decompress(src.read_bytes()))
    else:
        shutil.copyfile(src, dest)


def _markdown_sources() -> list[Path]:
    out = []
    for path in sorted(DOC.rglob("*.md*")):
        name = path.name.removesuffix(".gz")
        if not name.endswith(".md") or "nodejs" in path.parts or SKIP_MD.search(name):
            continue
        out.append(path)
    return out


def build_corpus(dest: Path, *, man_named: list[str], man_count: int) -> Counter[str]:
    """Copy (and render) the corpus into ``dest``; returns files per format."""
    found: Counter[str] = Counter()
    found["man (text)"] = render_man(dest / "man", _man_names(man_named, man_count))
    html = [(p, dest / "nodejs" / p.name) for p in sorted((DOC / "nodejs/api").glob("*.html"))]
    html += [(p, dest / "valgrind" / p.name) for p in sorted((DOC / "valgrind/html").glob("*.html"))]
    for book in RUST_BOOKS[:1]:
        html += [(p, dest / "rust-book" / p.name) for p in sorted(book.glob("ch*.html"))]
    for src, out in html:
        _copy(src, out)
    found["HTML"] = len(html)
    for src in _markdown_sources():
        rel = src.relative_to(DOC)
        _copy(src, dest / "markdown" / rel.parent / src.name.removesuffix(".gz"))
        found["Markdown"] += 1
    for src in sorted(DOC.rglob("*.pdf")):
        _copy(src, dest / "pdf" / src.name)
        found["PDF"] += 1
    return found


def _fold(text: str) -> str:
    # Man pages hyphenate with U+2010 at line ends; spacing differs by renderer.
    text = re.sub(r"[\u2010\u00ad]\s*\n\s*", "", text)
    return " ".join(text.split()).lower()


def answered(expect: list[str], answer: Answer, *, every: bool = False) -> bool:
    """A shown sentence holds one of ``expect`` (with ``every``: the shown sentences
    hold all of them, the items of a list asked for)."""
    shown = [_fold(s.text) for s in answer.sentences]
    found = [any(_fold(e) in s for s in shown) for e in expect]
    return all(found) if every else any(found)


def _where(answer: Answer) -> str:
    if not answer.sentences:
        return ""
    c = answer.sentences[0].citations[0]
    return c.title[:40] or Path(c.source).name


def ask_all(tether: Tether, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for q in questions:
        started = time.perf_counter()
        answer = tether.ask(q["q"], record=False)
        took = time.perf_counter() - started
        expect = q.get("expect")
        ok = answer.refused if expect is None else (
            not answer.refused and answered(expect, answer, every=q.get("all", False)))
        shown = " | ".join(s.text for s in answer.sentences)
        rows.append({"id": q["id"], "question": q["q"], "answerable": expect is not None,
                     "ok": ok, "refused": answer.refused, "shown": shown,
                     "where": _where(answer), "reason": answer.refusal_reason or "",
                     "seconds": round(took, 3)})
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        mark = "ok  " if r["ok"] else "FAIL"
        kind = "ans" if r["answerable"] else "una"
        what = (f"refused: {r['reason'][:110]}" if r["refused"]
                else f"[{r['where']}] {' '.join(r['shown'].split())[:150]}")
        print(f"{mark} {kind} {r['id']:<22} {what}")


def figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    refused = [r for r in rows if r["refused"]]
    return {
        "answer_accuracy": sum(r["ok"] for r in ans) / len(ans) if ans else 0.0,
        "abstain_recall": sum(r["ok"] for r in una) / len(una) if una else 0.0,
        "abstain_precision": (sum(not r["answerable"] for r in refused) / len(refused)
                              if refused else 0.0),
        "answerable": len(ans), "unanswerable": len(una),
    }


def report(name: str, rows: list[dict[str, Any]]) -> dict[str, float]:
    figs = figures(rows)
    times = sorted(r["seconds"] for r in rows)
    print(f"\n{name}: answer accuracy {figs['answer_accuracy']:.3f} "
          f"({sum(r['ok'] for r in rows if r['answerable'])}/{figs['answerable']}), "
          f"abstain recall {figs['abstain_recall']:.3f} "
          f"({sum(r['ok'] for r in rows if not r['answerable'])}/{figs['unanswerable']}), "
          f"abstain precision {figs['abstain_precision']:.3f}  (targets: 0.85, 0.85); "
          f"ask p50 {times[len(times) // 2]:.2f} s, p95 {times[int(len(times) * 0.95)]:.2f} s")
    return figs


def _run_tail(command: list[str], keep: re.Pattern[str]) -> list[str]:
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False,
                         cwd=HERE.parent)
    lines = (out.stdout + out.stderr).splitlines()
    return [line for line in lines if keep.search(line)] or lines[-5:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, default=HERE / "realdocs_golden.json")
    parser.add_argument("--man", type=int, default=120, help="man pages to render")
    parser.add_argument("--no-demo", action="store_true")
    parser.add_argument("--no-squad", action="store_true")
    parser.add_argument("--json", type=Path, help="write per-question rows and figures here")
    parser.add_argument("--keep", type=Path, help="build the corpus and store here (reused)")
    parser.add_argument("--judge", help="also ask with this model judge, e.g. gguf:PATH")
    parser.add_argument("--judge-threads", type=int, default=2)
    args = parser.parse_args(argv)
    golden = json.loads(args.golden.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="tether-realdocs-") as tmp:
        root = args.keep or Path(tmp)
        corpus, db = root / "corpus", root / "realdocs.db"
        fresh = not db.exists()
        if fresh:
            started = time.perf_counter()
            found = build_corpus(corpus, man_named=golden["man_pages"], man_count=args.man)
            print(f"corpus built in {time.perf_counter() - started:.1f} s: "
                  + ", ".join(f"{k} {v}" for k, v in found.items())
                  + f"; {sum(found.values())} files"
                  + ("" if RUST_BOOKS else " (no Rust book installed)"))
        size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
        with Tether(db) as tether:
            if fresh:
                started = time.perf_counter()
                results = tether.ingest(corpus, license="as installed")
                took = time.perf_counter() - started
                failed = Counter(r.error.split(" (")[0] for r in results if r.error)
                print(f"ingested {len(results)} files ({sum(failed.values())} failed"
                      + "".join(f"; {n}: {why}" for why, n in failed.items()) + "), "
                      f"{size / 1e6:.1f} MB in {took:.1f} s: {size / 1e6 / took:.2f} MB/s; "
                      f"{tether.store.counts()['passages']} passages")
            rows = ask_all(tether, golden["questions"])
        judged: list[dict[str, Any]] = []
        if args.judge:
            settings = load_settings(judge=args.judge, judge_threads=args.judge_threads,
                                     judge_timeout=300.0)
            with Tether(db, settings=settings) as reading:
                started = time.perf_counter()
                reading.judge()  # the load, timed apart from the asks
                print(f"judge {args.judge} loaded in {time.perf_counter() - started:.1f} s")
                judged = ask_all(reading, golden["questions"])
    print_rows(rows)
    figs = report("realdocs", rows)
    if judged:
        print(f"\nwith the judge {args.judge}:")
        print_rows(judged)
        report("realdocs + judge", judged)
    if not args.no_demo:
        print("\ndemo suite (tether eval --suite demo):")
        keep = re.compile(r"questions|answer accuracy|abstain (precision|recall)")
        print("\n".join("  " + line.strip() for line in
                        _run_tail(["tether", "eval", "--suite", "demo"], keep)))
    if not args.no_squad:
        print("\nSQuAD Normans (bench/squad_abstain.py):")
        keep = re.compile(r"^(config|probe\+guard|default|calibrated probe)")
        print("\n".join("  " + line for line in
                        _run_tail([sys.executable, str(HERE / "squad_abstain.py")], keep)))
    if args.json:
        out = {"figures": figs, "rows": rows}
        if judged:
            out |= {"judge": args.judge, "judge_figures": figures(judged), "judge_rows": judged}
        args.json.write_text(json.dumps(out, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Which sentences the extractive generator shows, question by question, and a diff.

    python bench/extractive_choices.py --out /tmp/after.json [--data ../shared/data]
    python bench/extractive_choices.py --out /tmp/after.json --diff /tmp/before.json

For the demo suite and SQuAD 2.0 "Normans" (when its file is in ``--data``) it asks
every question twice — abstain gate ``off`` (what the generator alone picked) and
``on`` (after the probe and the answer check) — and records the rendered text, the
refusal and whether a gold answer is shown. With ``--diff`` it prints the questions
whose outcome changed against an earlier run and the counts on both sides, so a
change to the ranking can be read as "these answers got better, these got worse".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tether.config import Settings
from tether.evaluate import build_suite_store, load_golden, suite
from tether.facade import Tether
from tether.records import Answer
from tether.text.fold import loose_fold as fold

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from squad_abstain import DEFAULT_DATA, load


def _row(key: str, answerable: bool, gold: tuple[str, ...], mode: str, a: Answer) -> dict[str, Any]:
    shown = " ".join(s.text for s in a.sentences)
    ok = (not a.refused and any(fold(g) in fold(shown) for g in gold)) if answerable else a.refused
    return {"key": key, "mode": mode, "answerable": answerable, "refused": a.refused,
            "shown": shown, "correct": ok}


def demo_rows() -> list[dict[str, Any]]:
    s = suite("demo")
    rows = []
    with tempfile.TemporaryDirectory(prefix="tether-choices-") as tmp:
        tether, _ = build_suite_store(s, Path(tmp) / "demo.db", settings=Settings())
        with tether:
            for item in load_golden(s.golden):
                for mode in ("off", "on"):
                    a = tether.ask(item.question, modes={"abstain": mode}, record=False)
                    rows.append(_row(f"demo:{item.id}", item.answerable,
                                     tuple(item.expect_contains), mode, a))
    return rows


def squad_rows(data: Path) -> list[dict[str, Any]]:
    if not (data / "squad2-dev-normans.json").is_file():
        return []
    rows = []
    with tempfile.TemporaryDirectory(prefix="tether-choices-") as tmp, Tether(
        Path(tmp) / "squad.db", settings=Settings()
    ) as tether:
        for q in load(data, tether):
            for mode in ("off", "on"):
                a = tether.ask(q.text, modes={"abstain": mode}, record=False)
                rows.append(_row(f"squad:{q.index}:{q.text}", q.answerable, q.answers, mode, a))
    return rows


def _counts(rows: list[dict[str, Any]]) -> str:
    out = []
    for prefix in ("demo", "squad"):
        for mode in ("off", "on"):
            part = [r for r in rows if r["key"].startswith(prefix) and r["mode"] == mode]
            ans = [r for r in part if r["answerable"]]
            una = [r for r in part if not r["answerable"]]
            if part:
                out.append(f"{prefix:5} abstain={mode:3}  answered right "
                           f"{sum(r['correct'] for r in ans)}/{len(ans)}, refused unanswerable "
                           f"{sum(r['correct'] for r in una)}/{len(una)}")
    return "\n".join(out)


def diff(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    old = {(r["key"], r["mode"]): r for r in before}
    for r in after:
        b = old.get((r["key"], r["mode"]))
        if b is None or (b["shown"] == r["shown"] and b["refused"] == r["refused"]):
            continue
        mark = "same" if b["correct"] == r["correct"] else ("BETTER" if r["correct"] else "WORSE")
        print(f"[{mark}] {r['key']} (abstain {r['mode']}, answerable={r['answerable']})")
        print(f"   before: {'REFUSED' if b['refused'] else b['shown'][:200]}")
        print(f"   after:  {'REFUSED' if r['refused'] else r['shown'][:200]}")
    print("before:\n" + _counts(before) + "\nafter:\n" + _counts(after))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--diff", type=Path, help="an earlier --out file to compare with")
    args = parser.parse_args(argv)
    rows = demo_rows() + squad_rows(args.data)
    args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    if args.diff:
        diff(json.loads(args.diff.read_text(encoding="utf-8")), rows)
    else:
        print(_counts(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

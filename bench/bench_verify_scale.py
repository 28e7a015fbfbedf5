"""Cost of ``tether verify`` with many sentences and many passages (issue 16, item 3).

N sentences against M short passages (single sentences of real paragraphs and SICK; without
``--data``, sentences of a fixed set). Sentences are a third verbatim copies, a third
copies with one figure or word changed, a third sentences of paragraphs left out of
the passages. Measured in one run:

- ``tether verify`` as a subprocess (wall time, process start included; target ≤ 5 s
  for 1,000 × 1,000), with its default workers (one per core) and with one;
- in process, one core, prepared-text cache cleared first: sentence–passage pairs
  settled per second (N × M over the time; target ≥ 5,000) and full alignments per
  second (the candidates the index hands to the support test);
- the substring baseline ``sentence.lower() in passage.lower()`` over all N × M pairs;
- exactness: outcomes and passages with the cap against every passage checked
  (``max_alignments`` = M) on the first ``--exact`` sentences (and on the first
  ``--big-exact`` of the bad-input request);
- the bad input, ``--big`` × ``--big`` through the CLI (0 skips it).

    python bench/bench_verify_scale.py [--data ../shared/data] [--n 1000] [--m 1000] [--big 10000]
                                       [--big-exact 300]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from tether.config import Settings
from tether.facade import verify_answer
from tether.text.sentences import sentence_ranges
from tether.verify.lexical import clear_cache

_BASE = [
    "The harbour bridge opened in 1932 after six years of work.",
    "Rollo agreed to swear fealty to King Charles III in 911.",
    "The vaccine reduced hospital admissions by 62% among adults over 65.",
    "Most glaciers in the Alps have lost a third of their volume since 1980.",
]


def _sentences(data: Path | None) -> list[str]:
    if data is None or not (data / "squad2-dev-normans.json").is_file():
        return [f"{s[:-1]} (record {i})." for i in range(3000) for s in _BASE][:12000]
    squad = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    paras = [p["context"] for a in squad["data"] for p in a["paragraphs"]]
    with (data / "halueval-qa-dev.jsonl").open(encoding="utf-8") as fh:
        paras += [json.loads(line)["knowledge"] for line in fh if line.strip()]
    out = []
    sick = data / "sick_train_trial.txt"
    if sick.is_file():  # short sentences with a small shared vocabulary: the hard case
        for line in sick.read_text(encoding="utf-8").splitlines()[1:]:
            out += line.split("\t")[1:3]
    for para in paras:
        out += [para[a:b].strip() for a, b in sentence_ranges(para) if 40 <= b - a <= 300]
    return list(dict.fromkeys(out))


def _perturb(sentence: str, rng: random.Random) -> str:
    digits = re.search(r"\d+", sentence)
    if digits:
        return sentence[: digits.start()] + str(int(digits.group()) + 7) + sentence[digits.end() :]
    words = sentence.split()
    i = rng.randrange(len(words))
    words[i] = "never" if i else "Nobody"
    return " ".join(words)


def build(pool: list[str], n: int, m: int, seed: int = 16) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    picked = rng.sample(pool, min(len(pool), m + n // 3)) if len(pool) >= m + n // 3 else pool
    passages = [picked[i % len(picked)] for i in range(m)]
    outside = picked[m:] or pool
    sentences = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            sentences.append(passages[rng.randrange(m)])
        elif kind == 1:
            sentences.append(_perturb(passages[rng.randrange(m)], rng))
        else:
            sentences.append(outside[rng.randrange(len(outside))])
    return sentences, passages


def _request(sentences: list[str], passages: list[str]) -> str:
    return json.dumps({"passages": [{"id": f"p{i}", "text": t} for i, t in enumerate(passages)],
                       "sentences": sentences})


def cli(sentences: list[str], passages: list[str], timeout: float, **env_vars: str) -> tuple[float, int, str]:
    body = _request(sentences, passages)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src"), **env_vars}
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "tether", "verify"], input=body, text=True,
                         capture_output=True, timeout=timeout, env=env, check=False)
    return time.perf_counter() - t0, run.returncode, run.stderr.strip()[-300:]


def in_process(sentences: list[str], passages: list[str], settings: Settings) -> dict[str, float]:
    from tether.guard import attribute

    checks = 0
    real = attribute.check

    def counted(*args: object, **kw: object) -> object:
        nonlocal checks
        checks += 1
        return real(*args, **kw)  # type: ignore[arg-type]

    clear_cache()
    attribute.check = counted  # type: ignore[assignment]
    try:
        t0 = time.process_time()
        verify_answer(passages={f"p{i}": t for i, t in enumerate(passages)}, sentences=sentences,
                      settings=settings)
        cpu = time.process_time() - t0
    finally:
        attribute.check = real
    pairs = len(sentences) * len(passages)
    return {"cpu_s": round(cpu, 3), "pairs": pairs, "pairs_per_s": round(pairs / cpu),
            "alignments": checks, "alignments_per_s": round(checks / cpu)}


def baseline(sentences: list[str], passages: list[str]) -> dict[str, float]:
    low = [p.lower() for p in passages]
    t0 = time.process_time()
    found = sum(1 for s in sentences if any(s.lower() in p for p in low))
    cpu = time.process_time() - t0
    pairs = len(sentences) * len(passages)
    return {"cpu_s": round(cpu, 3), "pairs_per_s": round(pairs / cpu), "found": found}


def exactness(sentences: list[str], passages: list[str], k: int) -> dict[str, object]:
    table = {f"p{i}": t for i, t in enumerate(passages)}
    capped = verify_answer(passages=table, sentences=sentences[:k], settings=Settings())
    full = verify_answer(passages=table, sentences=sentences[:k],
                         settings=Settings(max_alignments=len(passages)))
    same = sum(a["outcome"] == b["outcome"] for a, b in zip(capped, full))
    supported_full = [b for b in full if b["outcome"] == "supported"]
    kept = sum(a["outcome"] == "supported" for a, b in zip(capped, full) if b["outcome"] == "supported")
    # Supported under the cap but not over every passage: what the cap must never add.
    added = sum(a["outcome"] == "supported" != b["outcome"] for a, b in zip(capped, full))
    same_passage = sum(a["passage_id"] == b["passage_id"] for a, b in zip(capped, full))
    return {"sentences": k, "same_outcome": same, "supported_full": len(supported_full),
            "supported_kept": kept, "supported_only_capped": added, "same_passage": same_passage}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--m", type=int, default=1000)
    ap.add_argument("--exact", type=int, default=150)
    ap.add_argument("--big", type=int, default=10000)
    ap.add_argument("--big-exact", type=int, default=0,
                    help="exactness on this many sentences of the --big request too (~0.3 s each)")
    args = ap.parse_args()
    pool = _sentences(args.data)
    sentences, passages = build(pool, args.n, args.m)
    wall, code, err = cli(sentences, passages, timeout=600)
    alone, alone_code, _ = cli(sentences, passages, timeout=600, TETHER_VERIFY_WORKERS="1")
    report: dict[str, object] = {
        "n": args.n, "m": args.m, "passage_pool": len(pool),
        "cli": {"wall_s": round(wall, 2), "exit": code, "target_s": 5.0, **({"stderr": err} if code else {}),
                "one_worker_wall_s": round(alone, 2), "one_worker_exit": alone_code},
        "in_process": {**in_process(sentences, passages, Settings()), "target_pairs_per_s": 5000},
        "substring_baseline": baseline(sentences, passages),
        "exactness": exactness(sentences, passages, min(args.exact, args.n)),
    }
    if args.big:
        s_big, p_big = build(pool, args.big, args.big, seed=17)
        wall, code, err = cli(s_big, p_big, timeout=600)
        report["bad_input_cli"] = {"n": args.big, "m": args.big, "wall_s": round(wall, 2), "exit": code,
                                   **({"stderr": err} if code else {})}
        if args.big_exact:
            report["bad_input_exactness"] = exactness(s_big, p_big, min(args.big_exact, args.big))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

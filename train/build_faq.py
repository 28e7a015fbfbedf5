#!/usr/bin/env python3
"""Answerability pairs in documentation's own shape, from FAQs that Tether has ingested.

    bash train/faq_docs.sh /tmp/faq/corpus          # FAQs of Debian packages no bench uses
    tether ingest /tmp/faq/corpus --db /tmp/faq/store.db
    python train/build_faq.py --db /tmp/faq/store.db --out train/out/faq.json.xz

SQuAD's questions are about Wikipedia prose; users ask documentation "How do I keep it
from …?" of option lists and imperative how-tos, which the shipped model scores low
(MODEL_CARD.md). A FAQ is such questions answered by the documentation's authors: each
entry's heading is the question, the first sentence under it the answer (positive), and
sentences of the same document's other entries (same topic, same vocabulary, another
question: the near misses an unanswerable question meets) the negatives, the ones
sharing most words with the question first. The entry's own later sentences are left
out (they may or may not answer), and the question heading is cut from the window's
path so the model cannot find the answer by finding the question.

Held out by document (a hash of its package/file name), never by a cut of one entry's
pairs. Same file format as ``build_data.py`` writes; ``train_reader.py --extra`` adds it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from tether.readers.windows import answer_window, sentence_path  # noqa: E402
from tether.records import Document, Passage  # noqa: E402
from tether.store.sqlite import SQLiteStore  # noqa: E402
from tether.text.sentences import sentence_spans  # noqa: E402
from tether.text.terms import stems  # noqa: E402

# "4.2. ", "Q3: ", "2.1.3 " before a question heading
_NUMBERING = re.compile(r"^\s*(?:[A-Z]{0,2}\d+(?:\.\d+)*[.:)]?|[QA][.:])\s+")
_WORD = re.compile(r"[A-Za-z]{2,}")


def question_of(heading: str) -> str | None:
    """The question a FAQ heading asks, without its numbering, or None."""
    text = _NUMBERING.sub("", heading).strip()
    return text if text.endswith("?") and len(text.split()) >= 4 else None


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def _prose(sentence: str) -> bool:
    """A sentence of words that can answer: not code, a listing, an aside
    ("(contributed by …)") or a lead-in to code ("… looks like this:")."""
    words = sentence.split()
    bare = sentence.strip()
    return len(words) >= 4 and not bare.startswith((">>>", "$ ", "#", "(")) \
        and "```" not in bare and not bare.endswith(":") \
        and len(_WORD.findall(sentence)) >= 0.6 * len(words)


def _stored(db: Path) -> Iterator[tuple[Document, Passage]]:
    """Each stored document's current passages, in text order."""
    store = SQLiteStore(db)
    try:
        for document in store.documents():
            version = store.current_version(document.doc_id)
            for passage in store.passages(document.doc_id, version) if version else ():
                yield document, passage
    finally:
        store.close()


def entries(db: Path) -> dict[str, list[tuple[str, list[tuple[str, str]]]]]:
    """Per document: (question, [(sentence, window)]) per FAQ entry, in document order."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for document, passage in _stored(db):
        asked = [(i, q) for i, h in enumerate(passage.heading) if (q := question_of(h))]
        if not asked:
            continue
        at, question = asked[-1]
        source, title = document.source, document.title
        path_above = passage.heading[:at]  # the question's own heading is not context
        # the heading line ("## 4.2. How do I …?") is the question, not its answer
        body = passage.text.find("\n") + 1 if passage.text.startswith("#") else 0
        spans = [s for s in sentence_spans(passage.text) if s.start >= body]
        # a man page's or text FAQ's question line is the passage's first sentence
        headings = " ".join(_flat(h) for h in passage.heading)
        spans = [s for s in spans if _flat(passage.text[s.start:s.end]) not in headings]
        texts = [passage.text[s.start:s.end] for s in spans]
        windows = []
        for k, (span, sentence) in enumerate(zip(spans, texts)):
            if not _prose(sentence):
                continue
            windows.append((sentence, answer_window(
                sentence, sentence_path(title, path_above, passage.text, span.start),
                texts[k - 1] if k else "", texts[k + 1] if k + 1 < len(texts) else "")))
        out.setdefault(source, {}).setdefault(question, []).extend(windows)
    return {src: list(qs.items()) for src, qs in out.items()}


def pairs_of(docs, seed: int, negatives: int, test_share: float) -> dict:
    """``build_data.py``'s format: each question with its first answering sentence (yes)
    and ``negatives`` sentences of its document's other entries (no), half of them the
    ones sharing most of its words."""
    rng = random.Random(seed)
    texts: list[str] = []
    index: dict[str, int] = {}

    def at(text: str) -> int:
        if text not in index:
            index[text] = len(texts)
            texts.append(text)
        return index[text]

    pairs = []
    for source, qs in sorted(docs.items()):
        name = "faq-" + "/".join(Path(source).parts[-2:])  # package/file: not where it was built
        bucket = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        split = "test" if bucket < test_share else "train"
        for k, (question, windows) in enumerate(qs):
            if not windows:
                continue
            asked = stems(question)
            pairs.append([at(question), at(windows[0][1]), 1, split, name])
            others = [w for j, (_, ws) in enumerate(qs) if j != k for w in ws]
            others.sort(key=lambda w: (-len(asked & stems(w[0])), rng.random()))
            hard = others[: negatives // 2]
            rest = others[negatives // 2:]
            for _, window in hard + rng.sample(rest, min(len(rest), negatives - len(hard))):
                pairs.append([at(question), at(window), 0, split, name])
    return {"texts": texts, "pairs": pairs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a Tether store holding the FAQs")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--negatives", type=int, default=4, help="negatives per question")
    ap.add_argument("--test-share", type=float, default=0.2, help="share of documents held out")
    ap.add_argument("--seed", type=int, default=20261205)
    args = ap.parse_args()
    blob = pairs_of(entries(args.db), args.seed, args.negatives, args.test_share)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(lzma.compress(json.dumps(blob).encode()))
    counts: dict[tuple[str, str, int], int] = {}
    for _, _, label, split, src in blob["pairs"]:
        counts[(split, src, label)] = counts.get((split, src, label), 0) + 1
    for key, n in sorted(counts.items()):
        print(*key, n)


if __name__ == "__main__":
    main()

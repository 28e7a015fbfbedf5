"""The WordNet database, read in place: a word's lemmas and senses, a synset's
pointers, its hypernyms and its depth (``lexicon`` reads relations between two words
from these; docs/adr/0015-wordnet-lexicon.md).

The database is Princeton WordNet 3.0 in its own file format (Debian ``wordnet-base``
installs it in ``/usr/share/wordnet``; ``TETHER_WORDNET`` or WordNet's own
``WNSEARCHDIR`` name another folder). An index line is found by binary search in the
memory-mapped ``index.<pos>`` file and a synset by its byte offset in ``data.<pos>``.
"""

from __future__ import annotations

import mmap
import os
import re
from functools import lru_cache
from pathlib import Path

POS = ("n", "v", "a", "r")


_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}


_DIRS = (
    "/usr/share/wordnet",
    "/usr/local/share/wordnet",
    "/usr/share/wordnet-3.0/dict",
)


# Morphy's detachment rules (WordNet's morph.c), per part of speech.
_RULES = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}  # fmt: skip


# Suppletive plurals noun.exc lacks: "people" is also the plural of "person".
_PLURALS = {"n": {"people": ("person",)}}


Synset = tuple[str, int]  # (part of speech, byte offset in data.<pos>)


# Levels of each index file's binary search whose probes are kept (``index_line``).
_PROBE_LEVELS = 13


def wordnet_dir() -> Path | None:
    """The folder holding the WordNet database files, or None."""
    for name in ("TETHER_WORDNET", "WNSEARCHDIR"):
        if value := os.environ.get(name):
            return Path(value) if (Path(value) / "index.noun").is_file() else None
    for d in _DIRS:
        if (Path(d) / "index.noun").is_file():
            return Path(d)
    return None


class _Database:
    """The memory-mapped files of one WordNet folder."""

    def __init__(self, root: Path) -> None:
        self.index = {p: self._map(root / f"index.{f}") for p, f in _FILES.items()}
        self.data = {p: self._map(root / f"data.{f}") for p, f in _FILES.items()}
        self.exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
        self.probes: dict[str, dict[int, tuple[int, int, bytes, bytes | None]]] = {p: {} for p in _FILES}
        for p, f in _FILES.items():
            table: dict[str, tuple[str, ...]] = {}
            exc = root / f"{f}.exc"
            if exc.is_file():
                for line in exc.read_text(encoding="latin-1").splitlines():
                    parts = line.split()
                    if len(parts) >= 2:
                        table[parts[0]] = tuple(parts[1:])
            self.exceptions[p] = table

    @staticmethod
    def _map(path: Path) -> mmap.mmap:
        with path.open("rb") as fh:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    def index_line(self, pos: str, lemma: str) -> bytes | None:
        """Binary search of the sorted ``index.<pos>`` (its licence lines start "  ").

        Every search probes the same lines first; the probes of the top
        ``_PROBE_LEVELS`` levels are kept (at most 2 ** levels per file)."""
        mm, key = self.index[pos], lemma.encode("latin-1", "replace")
        probes = self.probes[pos]
        lo, hi = 0, len(mm)
        level = 0
        while lo < hi:
            mid = (lo + hi) // 2
            probe = probes.get(mid)
            if probe is None:
                start = mm.rfind(b"\n", 0, mid) + 1
                end = mm.find(b"\n", start)
                end = len(mm) if end < 0 else end
                line = mm[start:end]
                probe = (start, end, line, None if line.startswith(b"  ") else line.split(b" ", 1)[0])
                if level < _PROBE_LEVELS:
                    probes[mid] = probe
            level += 1
            start, end, line, word = probe
            if word is None or word < key:
                lo = end + 1
            elif word == key:
                return line
            else:
                hi = start
        return None

    def data_line(self, pos: str, offset: int) -> bytes:
        mm = self.data[pos]
        end = mm.find(b"\n", offset)
        return mm[offset : len(mm) if end < 0 else end]


@lru_cache(maxsize=1)
def _db() -> _Database | None:
    root = wordnet_dir()
    if root is None:
        return None
    try:
        return _Database(root)
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=1)
def verb_forms() -> frozenset[str]:
    """Irregular inflected verb forms WordNet lists ("held", "caught", "eaten")."""
    db = _db()
    return frozenset(db.exceptions["v"]) if db is not None else frozenset()


@lru_cache(maxsize=8192)
def irregular_base(word: str) -> str | None:
    """The verb an irregular inflected form belongs to ("ridden" -> "ride"), when the
    form is not itself a noun or a verb ("saw", "left", "found" are) and has one verb."""
    db = _db()
    if db is None or _senses(word, "n") or _senses(word, "v"):
        return None
    bases = [b for b in db.exceptions["v"].get(word, ()) if _senses(b, "v")]
    return bases[0] if len(bases) == 1 else None


def available() -> bool:
    """Whether the WordNet database was found (see ``wordnet_dir``)."""
    return _db() is not None


@lru_cache(maxsize=65536)
def _senses(lemma: str, pos: str) -> tuple[Synset, ...]:
    db = _db()
    line = db.index_line(pos, lemma) if db else None
    if line is None:
        return ()
    parts = line.split()
    n_ptr = int(parts[3])
    synset_cnt = int(parts[2])
    offsets = parts[4 + n_ptr + 2 : 4 + n_ptr + 2 + synset_cnt]
    found = tuple((pos, int(o)) for o in offsets)
    if pos != "n" or len(found) < 2:
        return found
    # A word the text writes in lower case is read in its common senses first: "jersey"
    # is a shirt before it is New Jersey, "grey" a colour before it is Lady Jane Grey
    # (WordNet spells a proper noun's lemma with its capital).
    common = tuple(t for t in found if not _proper(t, lemma))
    return common + tuple(t for t in found if t not in common)


def _proper(synset: Synset, lemma: str) -> bool:
    """Whether ``synset`` spells ``lemma`` with a capital (a name: "Jersey")."""
    db = _db()
    assert db is not None
    parts = db.data_line(*synset).split(b" ", 4 + 2 * 64)
    n_words = int(parts[3], 16)
    key = lemma.encode("latin-1", "replace")
    spelt = [w.split(b"(")[0] for w in parts[4 : 4 + 2 * n_words : 2]]
    mine = [w for w in spelt if w.lower() == key]
    return bool(mine) and all(w != w.lower() for w in mine)


@lru_cache(maxsize=8192)
def lemmas(word: str, pos: str) -> tuple[str, ...]:
    """Base forms of ``word`` in WordNet as part of speech ``pos`` (morphy)."""
    db = _db()
    w = word.lower().replace(" ", "_")
    if w.endswith(("'s", "s'")) and len(w) > 3:
        w = w[:-2] if w.endswith("'s") else w[:-1]  # a possessive: "someone's" is "someone"
    if db is None or not w.isascii():
        return ()
    found: list[str] = []
    if _senses(w, pos):
        found.append(w)
    for base in (*db.exceptions[pos].get(w, ()), *_PLURALS.get(pos, {}).get(w, ())):
        if base not in found and _senses(base, pos):
            found.append(base)
    for suffix, repl in _RULES[pos]:
        if w.endswith(suffix) and len(w) > len(suffix) + 1:
            base = w[: len(w) - len(suffix)] + repl
            if base not in found and _senses(base, pos):
                found.append(base)
    if pos == "v" and not found and len(w) > 4 and w.endswith(("ing", "ed")):
        # "running", "stopped": a doubled final consonant.
        stem = w[:-3] if w.endswith("ing") else w[:-2]
        if stem[-1] == stem[-2] and _senses(stem[:-1], pos):
            found.append(stem[:-1])
    return tuple(found)


@lru_cache(maxsize=65536)
def _record(synset: Synset) -> tuple[frozenset[str], tuple[tuple[str, Synset], ...]]:
    """(lemmas, pointers) of one synset; a pointer is (symbol, target synset)."""
    db = _db()
    assert db is not None
    line = db.data_line(*synset)
    cut = line.find(b" | ")  # the gloss, not read here
    parts = (line if cut < 0 else line[:cut]).split()
    n_words = int(parts[3], 16)
    words = frozenset(w.decode("latin-1").lower().split("(")[0] for w in parts[4 : 4 + 2 * n_words : 2])
    i = 4 + 2 * n_words
    n_ptr = int(parts[i])
    ptrs = []
    for k in range(i + 1, i + 1 + 4 * n_ptr, 4):
        pos = parts[k + 2].decode()
        ptrs.append((parts[k].decode(), ("a" if pos == "s" else pos, int(parts[k + 1]))))
    return words, tuple(ptrs)


@lru_cache(maxsize=65536)
def _synsets(word: str, limit: int) -> dict[str, tuple[Synset, ...]]:
    # Cached: callers read the mapping and never change it.
    out: dict[str, tuple[Synset, ...]] = {}
    for pos in POS:
        found: list[Synset] = []
        for lemma in lemmas(word, pos):
            found += [s for s in _senses(lemma, pos)[:limit] if s not in found]
        if found:
            out[pos] = tuple(found)
    return out


# WordNet's glosses of a register variant: "a polite name for", "an informal term for".
_REGISTER = re.compile(
    r"^\s*(?:\(informal\)\s+)?(?:an?\s+)?(?:polite|informal|colloquial|familiar)\s+"
    r"(?:term|name|word)\s+for\b"
)


@lru_cache(maxsize=16384)
def _register_variant(synset: Synset) -> frozenset[Synset]:
    """The hypernyms ``synset`` is only another register's name for, if its gloss says so."""
    db = _db()
    assert db is not None
    line = db.data_line(*synset)
    gloss = line.split(b"|", 1)[1].decode("latin-1") if b"|" in line else ""
    return frozenset(_pointed(synset, _UP)) if _REGISTER.match(gloss) else frozenset()


@lru_cache(maxsize=65536)
def dominant(word: str) -> str | None:
    """The part of speech with the most senses of ``word`` (ties: n, v, a, r)."""
    best, count = None, 0
    for pos in POS:
        n = sum(len(_senses(lemma, pos)) for lemma in lemmas(word, pos))
        if n > count:
            best, count = pos, n
    return best


@lru_cache(maxsize=65536)
def _pointed(synset: Synset, symbols: tuple[str, ...]) -> tuple[Synset, ...]:
    return tuple(t for sym, t in _record(synset)[1] if sym in symbols)


_UP = ("@", "@i")


@lru_cache(maxsize=16384)
def _ancestors(synset: Synset, depth: int) -> dict[Synset, int]:
    """Hypernyms up to ``depth`` levels, with the level each is first reached at."""
    seen: dict[Synset, int] = {synset: 0}
    frontier = [synset]
    for level in range(1, depth + 1):
        nxt = []
        for s in frontier:
            for t in _pointed(s, _UP):
                if t not in seen:
                    seen[t] = level
                    nxt.append(t)
        frontier = nxt
    return seen


@lru_cache(maxsize=16384)
def _root_depth(synset: Synset) -> int:
    """Levels from ``synset`` up to the top of its hierarchy (the shortest way)."""
    frontier, seen = [synset], {synset}
    for level in range(64):
        nxt = [t for s in frontier for t in _pointed(s, _UP) if t not in seen]
        if not nxt:
            return level
        seen.update(nxt)
        frontier = nxt
    return 64


@lru_cache(maxsize=16384)
def _height(synset: Synset) -> int:
    """Levels from ``synset`` up to the top on its longest way."""
    ups = _pointed(synset, _UP)
    return 1 + max(_height(u) for u in ups) if ups else 0


def _heads(synset: Synset) -> list[Synset]:
    # An adjective satellite ("reduced") takes its antonyms from its head ("decreased").
    return [synset, *_pointed(synset, ("&",))]


@lru_cache(maxsize=16384)
def _lexfile(synset: Synset) -> int:
    """The lexicographer file of ``synset`` (noun.animal, noun.person, verb.motion …)."""
    db = _db()
    assert db is not None
    return int(db.data_line(*synset).split(b" ", 2)[1])

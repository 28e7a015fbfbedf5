"""The shallow reading of a prepared text, sentence by sentence: tagged
(``tagging``), then linked (``linking``), cached on the text (``shallow``:
the record and its vocabulary).

    >>> from .lexical import prepare
    >>> p = prepare("A man is eating a cut onion")
    >>> [(p.low[x], t) for x, t in enumerate(read(p).tag) if t]
    [('man', 'N'), ('eating', 'V'), ('cut', 'M'), ('onion', 'N')]
"""

from __future__ import annotations

from .lexical import Prepared
from .linking import link_sentence
from .shallow import Reading
from .tagging import tag_sentence

__all__ = ["read"]

def read(p: Prepared, t0: int = 0, t1: int | None = None) -> Reading:
    """The reading of ``p`` with at least the sentences holding tokens ``[t0, t1)``
    tagged (all by default). Cached on the prepared text, sentence by sentence, so a
    long passage costs only the windows the support test looks at."""
    r = p.shallow
    if r is None:
        n = len(p.low)
        r = Reading([None] * n, [-1] * n, [-1] * n, [-1] * n, [False] * n, [False] * n,
                    [False] * n, set(), [-1] * n)  # fmt: skip
        p.shallow = r
    assert isinstance(r, Reading)
    if not p.sent_tokens:
        return r
    last = len(p.sent_tokens) - 1
    first = p.sent[t0] if t0 < len(p.sent) else last
    end = p.sent[t1 - 1] if t1 is not None and 0 < t1 <= len(p.sent) else last
    for i in range(first, end + 1):
        if i not in r.done:
            r.done.add(i)
            s0, s1 = p.sent_tokens[i]
            tag_sentence(p, r, s0, s1)
            link_sentence(p, r, s0, s1)
    return r

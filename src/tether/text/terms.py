"""Words of a text: the one stopword list, the one stemmer, and content terms.

Every stage that compares words (the retriever's query, the probe, the answer check,
the verifier's coverage keys) asks this module, so a word is the same word to all
of them. ``stem`` strips the common English inflections ("replaced" / "replace",
"paralyses" / "paralyse", "rides" / "riding") so a plain inflection is not mistaken
for an absent subject. It is deliberately light — no dictionary — and applied
identically to both sides of every comparison, so a rough stem costs nothing as
long as it is consistent; it leaves "-er" and "-ation" alone ("order" is not "ord")
because the verifier must not take one word for another.

    >>> [t.stem for t in content_terms("Who owns the replaced Norvale policies?")]
    ['own', 'replac', 'norval', 'policy']
    >>> stem("riding") == stem("rides")
    True
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "NEGATION_WORDS",
    "QUERY_STOPWORDS",
    "QUESTION_WORDS",
    "STOPWORDS",
    "Term",
    "content_terms",
    "stem",
    "stems",
]

NEGATION_WORDS = frozenset(
    "not no never none nobody nothing nowhere neither nor without cannot non lack lacks "
    "lacked lacking absent".split()
    # A few common negators of other languages, so a flipped sentence there is not
    # waved through; the rest of the checks are English-only.
    + "nicht kein keine keinen nie ne pas jamais sans nunca не нет ни никогда без "
    "لا ليس ليست لم لن غير".split()
)

# Function words carry no claim on their own. Negators, quantifiers and modals are in
# the list on purpose: coverage ignores them and the polarity/quantifier/modality
# checks compare them explicitly, which is the whole point of those checks. Words split
# at an apostrophe leave a contraction's halves ("isn't" → "isn", "t"; "we'll" → "ll"):
# function words too, never a word the collection must contain.
STOPWORDS = frozenset(
    """a an the and or but if then than that this these those there here it its it's
    itself of in on at to from by with for as into onto over under about above below
    between through during before after since until upon within without against among
    across off out up once further
    is are was were be been being am do does did done doing has have had having
    will would shall should can could may might must ought need dare don t
    isn aren wasn weren doesn didn hasn haven hadn shouldn wouldn couldn mustn needn
    mightn shan ain ll ve re
    i me my mine we us our ours you your yours he him his she her hers they them
    their theirs who whom whose which what when where why how whether
    not no nor never none neither either n't cannot nothing nobody nowhere
    all some any each every most many much more less few fewer several both other
    others another such same own only just also very too so quite rather really
    again still yet already ever even however thus therefore hence furthermore
    moreover meanwhile although though because while whereas instead later today now
    currently recently finally
    per percent cent one ones s
    always sometimes often usually rarely seldom generally mostly occasionally
    perhaps possibly probably likely unlikely potentially certainly definitely""".split()
) | NEGATION_WORDS

# Words that frame a request rather than name its subject ("tell me", "according to
# the document"); a question's content terms and the retriever's query leave them out.
QUESTION_WORDS = frozenset(
    "tell give list name according document documents say says said please".split()
)
QUERY_STOPWORDS = STOPWORDS | QUESTION_WORDS

# Words, with inner digit groups kept whole ("64.7", "62,500", "1980s") and a
# possessive "'s" attached so it can be stripped.
_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*(?:['’]s\b)?", re.UNICODE)
# Only plain ASCII words are stemmed; the suffix rules are English.
_ASCII_WORD = re.compile(r"[a-z]+")


def _fold_accents(word: str) -> str:
    # "Hervé" and "Herve" are one name to a reader; to a comparison only without marks.
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix stripper; enough to meet "rode"/"riding"/"rides".

    Lower-cases, folds accents and drops a possessive first, so callers may pass a
    word as written.
    """
    word = _fold_accents(word.lower())
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    elif word.endswith(("'", "’")):
        word = word.rstrip("'’")
    if len(word) <= 3 or not _ASCII_WORD.fullmatch(word):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return _strip_suffix(word)


def _strip_suffix(word: str) -> str:
    stripped = True
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"  # "carried"/"carry", "denied"/"deny"
    elif word.endswith("ed") and len(word) > 4 and not word.endswith("eed"):
        word = word[:-2]
    elif word.endswith("ly") and len(word) > 6:
        word, stripped = word[:-2], False  # "largely" -> "large" ("family" stays)
    else:
        stripped = False
    if word.endswith("eed"):
        return word[:-1]  # "agreed"/"agree", "succeeded"/"succeed", "needed"/"need"
    if stripped and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsze":
        return word[:-1]  # "running" -> "run", "stopped" -> "stop"
    if len(word) > 3 and word.endswith("e") and not word.endswith("ee"):
        return word[:-1]  # "ride"/"riding", "smile"/"smiling"
    return word


@dataclass(frozen=True, slots=True)
class Term:
    """One content word: its stem, where it starts, and what kind of word it is."""

    stem: str
    word: str
    start: int
    capitalised: bool
    numeric: bool


def content_terms(text: str) -> list[Term]:
    """Content words of ``text`` in order (``QUERY_STOPWORDS`` and single letters left out)."""
    return list(_content_terms(text))


# Every question is checked against the same retrieved passages several times (probe,
# generator, answer check): tokenise each text once.
@lru_cache(maxsize=4096)
def _content_terms(text: str) -> tuple[Term, ...]:
    out = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        low = word.lower()
        if low.endswith(("'s", "’s")):
            low = low[:-2]
        if not low or low in QUERY_STOPWORDS or (len(low) < 2 and not low.isdigit()):
            continue
        out.append(
            Term(
                stem=stem(word),
                word=word,
                start=match.start(),
                capitalised=word[0].isupper(),
                numeric=any(c.isdigit() for c in word),
            )
        )
    return tuple(out)


def stems(text: str) -> set[str]:
    """The set of content stems of ``text``."""
    return {t.stem for t in _content_terms(text)}

"""Tagging: each content token of a sentence as a verb, a noun, a modifier or a
predicate, read left to right from closed-class words and WordNet's parts of speech
(the first pass of ``reading.read``; docs/adr/0019-shallow-roles.md).
"""

from __future__ import annotations

from ..text.english import (
    BASE_FORM_AUXILIARIES,
    BE_FORMS,
    CLAUSE_LINKS,
    DETERMINERS,
    HAVE_FORMS,
    LINKING_VERBS,
    PASSIVE_AUXILIARIES,
    PREPOSITIONS,
    RELATIVE_PRONOUNS,
    VERB_ADVERBS,
)
from . import lexicon
from .lexical import Prepared
from .shallow import (
    Reading,
    adjective,
    capital,
    manner_adverb,
    next_word,
    nominal,
    participle,
    plain,
    skip_back,
    verbal,
    verbal_form,
)

def tag_sentence(p: Prepared, r: Reading, t0: int, t1: int) -> None:
    tag = r.tag
    in_np = True  # a sentence opens with its subject
    seen_verb = False
    det, run = False, 0
    for x in range(t0, t1):
        w = p.low[x]
        if x > t0 and p.clause[x] != p.clause[x - 1]:
            in_np, det = True, False
        if tag[x] == "J":
            continue  # read with the word before it ("painted *beige*")
        if tag[x - 1 if x > t0 else x] != "N" or x == t0:
            run = 0
        if _pronoun_one(p, r, x, t0, t1):
            if tag[x - 1] == "N":
                tag[x - 1] = "M"  # "a white one"
            tag[x], r.firm[x] = "N", True  # "another one is grabbing the ball"
            in_np, det, run = False, False, 0
            continue
        if w in DETERMINERS or (p.keys[x] or "").startswith("#"):
            det, run, in_np = True, 0, True
            continue
        key = p.keys[x]
        if key is not None and _trailing_adverb(p, r, x, t1):
            in_np = False  # "people outdoors", "a man alone"
            continue
        if w in HAVE_FORMS and _possessive_have(p, x, t1):
            tag[x], r.aux[x] = "V", True  # "Wilson had a burning desire"
            in_np, det = True, False
            seen_verb = True
            continue
        if key is None and w in _LIGHT_STOP and _after_be(p, x, t0) and next_word(p, x, t1) in DETERMINERS:
            tag[x], r.aux[x] = "V", True  # "is doing a dance", "is having a drink"
            in_np, det, seen_verb = True, False, True
            continue
        if key is None or w in PREPOSITIONS or manner_adverb(w):
            if w in PREPOSITIONS or w in CLAUSE_LINKS or key is not None:
                in_np = key is None or not manner_adverb(w)
            elif w not in VERB_ADVERBS:
                in_np = False
            det = det and w in VERB_ADVERBS
            continue
        read = _tag_in_context(p, r, x, t0, t1, in_np, seen_verb)
        if read is not None:
            in_np = read
        elif in_np and (nominal(w) or participle(w)):
            same_phrase = x > t0 and tag[x - 1] == "N" and p.clause[x - 1] == p.clause[x]
            if same_phrase and not (capital(p, x - 1) and capital(p, x)):
                tag[x - 1] = "M"  # a name ("King Harold II") stays one run of nouns
            tag[x] = "N"
            run += 1
            r.firm[x] = det and run <= 3
        else:
            in_np = False
        if tag[x] != "N":
            det = False
        seen_verb = seen_verb or tag[x] == "V"
    _adjective_lists(p, r, t0, t1)


def _tag_in_context(
    p: Prepared, r: Reading, x: int, t0: int, t1: int, in_np: bool, seen_verb: bool
) -> bool | None:
    """A content word tagged by the words around it (``prev``, the word before it in
    its clause): whether a noun phrase goes on after it, or ``None`` when nothing
    around it decides (``tag_sentence`` then reads the word alone)."""
    tag, w = r.tag, p.low[x]
    y = skip_back(p, x, t0)
    prev = p.low[y] if y >= t0 and p.clause[y] == p.clause[x] else ""
    if prev in BE_FORMS or prev in PASSIVE_AUXILIARIES or prev in HAVE_FORMS:
        _after_aux(p, r, x, prev)
        return tag[x] == "V"
    if prev in LINKING_VERBS and tag[y] == "V" and lexicon.lemmas(w, "a") and not verbal_form(w):
        tag[x] = "J"  # "who looks young" says "young" of its subject
        return False
    if prev in RELATIVE_PRONOUNS and verbal(w) and (participle(w) or w.endswith("s")):
        tag[x] = "V"  # "a neighbour who *hosted* a dinner"
        r.aux[x] = True
        return True
    if prev in BASE_FORM_AUXILIARIES and verbal(w):
        tag[x] = "V"
        r.aux[x] = True
        return True
    if prev == "and" and y > t0 and tag[y - 1] == "J" and not verbal_form(w):
        tag[x], r.head[x] = "J", -2  # "which is black and white": the same subject
        return in_np
    if x > t0 and p.clause[x] != p.clause[x - 1] and tag[x - 1] == "J" and _listed_predicate(p, x, t1):
        tag[x], r.head[x] = "J", -2  # "which are black, pink and white": the same subject
        return in_np
    if prev == "and" and seen_verb and w.endswith("ing") and verbal(w):
        tag[x] = "V"  # "running in the grass and racing a dog"
        return True
    if w in LINKING_VERBS and w.endswith(("s", "ed")) and x > t0 and tag[x - 1] == "N" and _adjective_next(p, x, t1):
        tag[x], r.aux[x] = "V", True  # "the clerk *looks* tired"
        return False
    if _postposed_adjective(p, r, x, t1):
        tag[x] = "J"  # "an area *full* of grass": the area is full
        return True
    if _opening_participle(p, r, x, t0, t1):
        tag[x] = "V"  # "a cat with a white coat, *perched* on a cabinet, is looking"
        return True
    if _resultative(p, r, x, t1):
        tag[x], r.passive[x], tag[x + 1] = "V", True, "J"  # "a room painted beige"
        return False
    if _finite_after_noun(p, r, x, t1):
        tag[x] = "V"  # "a man riding a horse", "a person stands behind it"
        # "Engineers said the bridge …" heads the clause; "a man dressed in
        # chaps …" and "a man riding a horse" only qualify their noun.
        r.aux[x] = w.endswith("s") or (not w.endswith("ing") and next_word(p, x, t1) in DETERMINERS)
        return True
    return None


# Light verbs that are stop words: after a form of "be" and before a noun phrase they
# are the clause's verb ("a dancer is *doing* a pose"), and lend it the noun's action.
_LIGHT_STOP = frozenset(("doing", "having"))


def _after_be(p: Prepared, x: int, t0: int) -> bool:
    y = skip_back(p, x, t0)
    return y >= t0 and p.clause[y] == p.clause[x] and p.low[y] in BE_FORMS


def _adjective_next(p: Prepared, x: int, t1: int) -> bool:
    """The word after ``x`` in its clause is an adjective and no noun or verb form
    ("looks *tired*", not "looks *sale* items")."""
    nxt = next_word(p, x, t1)
    return bool(nxt) and bool(lexicon.lemmas(nxt, "a")) and not lexicon.lemmas(nxt, "n") and not verbal_form(nxt)


# Determiners after which "one" stands for a noun said before: "another one", "the other one".
_ONE_AFTER = frozenset(("another", "other", "each"))


def _pronoun_one(p: Prepared, r: Reading, x: int, t0: int, t1: int) -> bool:
    """"one" after "another"/"other"/"each", or after an adjective a determiner opened
    ("a white one"), with no noun after it, is a noun phrase's head ("another one is
    grabbing the ball"), not a determiner."""
    if p.low[x] != "one" or x == t0 or p.clause[x - 1] != p.clause[x]:
        return False
    y = x - 1
    adjective = r.tag[y] == "N" and y > t0 and p.low[y - 1] in DETERMINERS and bool(lexicon.lemmas(p.low[y], "a"))
    if p.low[y] not in _ONE_AFTER and not adjective:
        return False
    nxt = next_word(p, x, t1)
    return not nxt or not (plain(p, x + 1) and nominal(nxt) and not verbal_form(nxt)) or nxt in BE_FORMS


def _possessive_have(p: Prepared, x: int, t1: int) -> bool:
    """"has"/"had" as the main verb: a noun phrase follows, not a participle."""
    y = x + 1
    if y >= t1 or p.clause[y] != p.clause[x]:
        return False
    nxt = p.low[y]
    if nxt in DETERMINERS or (p.keys[y] or "").startswith("#"):
        return True
    return capital(p, y) and p.keys[y] is not None


def _trailing_adverb(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    if x == 0 or r.tag[x - 1] not in ("N", "V") or next_word(p, x, t1) != "":
        return False
    return bool(lexicon.lemmas(p.low[x], "r"))


def _after_aux(p: Prepared, r: Reading, x: int, prev: str) -> None:
    w = p.low[x]
    if w.endswith("ing") and verbal(w) and prev not in HAVE_FORMS:
        r.tag[x] = "V"
        # "is being chasing by a dog": "being" takes no -ing form; with an agent after
        # "by" it is the passive, its participle misspelt.
        r.passive[x] = prev == "being" and _agent_phrase_next(p, x)
    elif verbal(w) and (participle(w) or prev in PASSIVE_AUXILIARIES):
        r.tag[x] = "V"
        r.passive[x] = prev not in HAVE_FORMS
    elif prev in BE_FORMS:
        r.tag[x] = "J"
    r.aux[x] = r.tag[x] == "V"


def _agent_phrase_next(p: Prepared, x: int) -> bool:
    """"by" and a noun phrase right after ``x`` in its clause ("by a dog", not "by
    running")."""
    y = x + 1
    if y + 1 >= len(p.low) or p.low[y] != "by" or p.clause[y + 1] != p.clause[x]:
        return False
    nxt = p.low[y + 1]
    return nxt in DETERMINERS or (plain(p, y + 1) and not verbal_form(nxt))


def _postposed_adjective(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    """An adjective right after a noun with its "of" complement ("a beach *full* of
    sand", "a man *proud* of his dog") qualifies that noun: it heads no noun phrase.
    Only a word read mostly as an adjective ("the *top* of", "the *side* of" are nouns)."""
    w = p.low[x]
    if x == 0 or r.tag[x - 1] != "N" or p.clause[x - 1] != p.clause[x] or next_word(p, x, t1) != "of":
        return False
    return lexicon.dominant(w) == "a"


def _opening_participle(p: Prepared, r: Reading, x: int, t0: int, t1: int) -> bool:
    """A participle opening a clause after a noun, then a preposition or a determiner
    (", *perched* on a cabinet,", ", *wearing* a coat"): a verb that qualifies the
    noun, not a noun."""
    w = p.low[x]
    if x == t0 or p.clause[x - 1] == p.clause[x] or r.tag[x - 1] != "N" or not verbal(w):
        return False
    if not (w.endswith("ing") or participle(w)) or lexicon.lemmas(w, "n") and not w.endswith(("ing", "ed")):
        return False
    nxt = next_word(p, x, t1)
    return nxt in PREPOSITIONS or nxt in DETERMINERS


def _resultative(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    """"a room *painted* beige", "a door *left* open": a past participle right after a
    noun, then an adjective that ends the phrase, says the adjective of that noun."""
    w = p.low[x]
    if w.endswith("ing") or not participle(w) or not verbal(w):
        return False
    if x == 0 or r.tag[x - 1] != "N" or p.clause[x - 1] != p.clause[x] or not next_word(p, x, t1):
        return False
    if lexicon.lemmas(p.low[x - 1], "a"):
        return False  # "a dark skinned male": a compound adjective before its noun
    adj = p.low[x + 1]
    if not lexicon.lemmas(adj, "a") or lexicon.lemmas(adj, "r") or verbal_form(adj) or p.keys[x + 1] is None:
        return False
    after = next_word(p, x + 1, t1)
    # "painted beige walls": the adjective opens the verb's object.
    return not after or after in PREPOSITIONS or after in CLAUSE_LINKS or after in BE_FORMS


def _finite_after_noun(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    """"a man *riding* a horse", "the valve *failed* in 1990", "a person *stands*
    behind it": an inflected verb right after a noun, followed by what a verb takes
    (a determiner, a preposition, the clause end), is a verb, not a modifier."""
    w = p.low[x]
    ends_s = w.endswith("s") and not w.endswith("ss")
    if not (participle(w) or ends_s) or not verbal(w):
        return False
    if x == 0 or r.tag[x - 1] != "N" or p.clause[x - 1] != p.clause[x]:
        return False
    nxt = next_word(p, x, t1)
    named = x + 1 < t1 and p.clause[x + 1] == p.clause[x] and capital(p, x + 1)
    if ends_s and not participle(w):
        # "a person *stands* behind it", not "playing video *games* on the TV".
        if nxt not in DETERMINERS and nxt not in PREPOSITIONS and nxt != "" and not named:
            return False
        # A verb earlier in its conjunct (for the clause end: in its clause) makes
        # this a noun: "running in and out of the ocean *waves*".
        stops = CLAUSE_LINKS if nxt else frozenset()
        y = x - 1
        while y >= 0 and p.sent[y] == p.sent[x] and p.low[y] not in stops:
            if r.tag[y] == "V":
                return False
            y -= 1
        return True
    if nxt == "" or nxt in DETERMINERS or nxt in PREPOSITIONS or nxt in CLAUSE_LINKS or named:
        return True
    # "a woman *wearing* sunglasses", "people *playing* football": a noun phrase of one
    # noun, then the participle and its bare object (not "a horse riding boot": there
    # the noun opens no phrase of its own).
    before = p.low[x - 2] if x >= 2 and p.clause[x - 2] == p.clause[x] else ""
    opens = x == 1 or p.sent[x - 2] != p.sent[x] or before in DETERMINERS or before == "of"
    if lexicon.lemmas(p.low[x - 1], "a"):
        return False  # "a white racing car", "a small cooking pot": an adjective, then a compound
    return w.endswith("ing") and opens and p.keys[x + 1] is not None and nominal(nxt)


def _listed_predicate(p: Prepared, x: int, t1: int) -> bool:
    """An adjective opening a clause after a predicate, the next item of its list
    ("are black, *pink* and white")."""
    return adjective(p, x) and next_word(p, x, t1) in ("and", "or", "")


def _adjective_lists(p: Prepared, r: Reading, t0: int, t1: int) -> None:
    """"the tall and green grass", "black, pink and white uniforms": adjectives listed
    with "and"/"or" (and commas) before a noun's modifier all qualify that noun; the
    first was read as a noun of its own, the head of a phrase "and" ended."""
    tag = r.tag
    for z in range(t0 + 1, t1):
        if tag[z] != "M" or tag[z - 1] == "M":
            continue
        cur, items = z, []
        while cur > t0:
            prev = cur - 1
            if p.low[prev] in ("and", "or"):
                cand = prev - 1
            elif p.clause[prev] != p.clause[cur]:
                cand = prev
            else:
                break
            run = []
            while cand >= t0 and tag[cand] in ("N", "M") and adjective(p, cand):
                run.append(cand)  # "black, pink": a comma in a series ends no clause
                if cand - 1 < t0 or p.clause[cand - 1] != p.clause[cand] or tag[cand - 1] not in ("N", "M"):
                    break
                cand -= 1
            if not run or (run[-1] > t0 and tag[run[-1] - 1] in ("N", "M") and p.clause[run[-1] - 1] == p.clause[run[-1]]):
                break  # "the dog park and white uniforms": a noun, not a list of adjectives
            items += run
            cur = run[-1]
        for y in items:
            tag[y] = "M"

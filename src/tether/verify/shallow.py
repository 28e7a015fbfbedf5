"""A shallow reading of who does what: verbs, their agents and patients, modifiers.

Coverage and word-by-word accounting cannot tell "a man is cutting an onion" from
"a man is eating a cut onion", "sitting on the grass" from "a grass hat", or "a clown
is singing" from "people are singing and a clown is dancing": every word is there.
This module reads each sentence of a prepared text once, left to right, with a few
rules over closed-class words (determiners, auxiliaries, prepositions) and WordNet's
parts of speech, into one tag per content token:

- ``V``: a verb in use ("is *cutting*", "was *released*", "a man *riding* a horse"),
  with its agent and patient tokens when they can be read (active: subject and
  object; passive: the "by" phrase and the subject);
- ``N``: the head of a noun phrase ("a grass *hat*");
- ``M``: a modifier inside a noun phrase, with its head ("a *grass* hat");
- ``J``: a predicate after a form of "be" that is not a verb ("the dog is *brown*"),
  with its subject.

A token the rules cannot place is left untagged, and the support test reads only
tags it has on both sides: a shallow reading may fail to see a difference (support
then rests on the other tests), but it must not invent one in plain prose. No parser
model is needed, so nothing is downloaded and the cost is one pass per sentence
(docs/adr/0019-shallow-roles.md).

    >>> from .lexical import prepare
    >>> r = read(prepare("A man is eating a cut onion"))
    >>> [(prepare("A man is eating a cut onion").low[x], t) for x, t in enumerate(r.tag) if t]
    [('man', 'N'), ('eating', 'V'), ('cut', 'M'), ('onion', 'N')]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text import lexicon
from ..text.english import DETERMINERS, PREPOSITIONS
from .lexical import Prepared

__all__ = ["Reading", "manner_adverb", "partners", "pos_of", "read"]

BE = frozenset("is are was were be been being am 're 's".split())
# Auxiliaries and modals after which a verb comes in its base form.
_BASE_AUX = frozenset("do does did will would can could may might must shall should to".split())
_HAVE = frozenset("has have had".split())
_PASSIVE_AUX = frozenset("being been get gets got getting".split())
_LINKS = frozenset("and or but while".split())
_RELATIVE = frozenset("who which that whose".split())
# Verbs that link their subject to an adjective, as "be" does: "a child who looks young".
LINKING = frozenset(("look", "looks", "looked", "seem", "seems", "seemed", "appear", "appears", "appeared"))
_ADVERBS = frozenset("not never also still just now already always really even n't".split())


@dataclass(frozen=True, slots=True)
class Reading:
    """Per token: ``tag`` (V, N, M, J or None), ``head`` (for M the head noun, for J
    the subject), and for V ``agent``/``patient`` token indices (-1 when unknown) and
    ``passive``; ``firm``: a noun or modifier in a phrase a determiner opened, of at most
    three words (only such readings are held against another: "at sea level water
    boils" runs three nouns together that are no compound); ``aux``: the verb follows an auxiliary (it heads its clause, where a
    bare participle may only qualify a noun: "a man *riding* a horse is jumping")."""

    tag: list[str | None]
    head: list[int]
    agent: list[int]
    patient: list[int]
    passive: list[bool]
    aux: list[bool]
    firm: list[bool]  # N/M in a short phrase opened by a determiner ("a grass hat")
    done: set[int]  # sentences read so far
    # For a passive verb with an object: its subject, who receives ("a snake is being
    # fed a mouse": the snake).
    recipient: list[int]


def _skip_back(p: Prepared, x: int, lo: int) -> int:
    """The token before ``x`` (down to ``lo``) that is not an adverb."""
    y = x - 1
    while y >= lo and (p.low[y] in _ADVERBS or (p.low[y].endswith("ly") and len(p.low[y]) > 4)):
        y -= 1
    return y


def _verbal(word: str) -> bool:
    return bool(lexicon.lemmas(word, "v"))


def _nominal(word: str) -> bool:
    """Can be a noun or an adjective (or is unknown to WordNet: names, numbers)."""
    if not lexicon.available():
        return True
    if lexicon.lemmas(word, "n") or lexicon.lemmas(word, "a"):
        return True
    return not _verbal(word)


def _participle(word: str) -> bool:
    return word.endswith(("ing", "ed")) or word in _irregular()


def _irregular() -> frozenset[str]:
    return lexicon.verb_forms()


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
            _tag_sentence(p, r, s0, s1)
            _link_sentence(p, r, s0, s1)
    return r


def _next_word(p: Prepared, x: int, t1: int) -> str:
    return p.low[x + 1] if x + 1 < t1 and p.clause[x + 1] == p.clause[x] else ""


def manner_adverb(word: str) -> bool:
    """"carefully", "strongly": a manner adverb, which belongs to no noun phrase."""
    return word.endswith("ly") and bool(lexicon.lemmas(word, "r")) and not lexicon.lemmas(word, "n")


def _tag_sentence(p: Prepared, r: Reading, t0: int, t1: int) -> None:
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
        if w in _HAVE and _possessive_have(p, x, t1):
            tag[x], r.aux[x] = "V", True  # "Wilson had a burning desire"
            in_np, det = True, False
            seen_verb = True
            continue
        if key is None and w in _LIGHT_STOP and _after_be(p, x, t0) and _next_word(p, x, t1) in DETERMINERS:
            tag[x], r.aux[x] = "V", True  # "is doing a dance", "is having a drink"
            in_np, det, seen_verb = True, False, True
            continue
        if key is None or w in PREPOSITIONS or manner_adverb(w):
            if w in PREPOSITIONS or w in _LINKS or key is not None:
                in_np = key is None or not manner_adverb(w)
            elif w not in _ADVERBS:
                in_np = False
            det = det and w in _ADVERBS
            continue
        read = _tag_in_context(p, r, x, t0, t1, in_np, seen_verb)
        if read is not None:
            in_np = read
        elif in_np and (_nominal(w) or _participle(w)):
            same_phrase = x > t0 and tag[x - 1] == "N" and p.clause[x - 1] == p.clause[x]
            if same_phrase and not (_capital(p, x - 1) and _capital(p, x)):
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
    around it decides (``_tag_sentence`` then reads the word alone)."""
    tag, w = r.tag, p.low[x]
    y = _skip_back(p, x, t0)
    prev = p.low[y] if y >= t0 and p.clause[y] == p.clause[x] else ""
    if prev in BE or prev in _PASSIVE_AUX or prev in _HAVE:
        _after_aux(p, r, x, prev)
        return tag[x] == "V"
    if prev in LINKING and tag[y] == "V" and lexicon.lemmas(w, "a") and not _verbal_form(w):
        tag[x] = "J"  # "who looks young" says "young" of its subject
        return False
    if prev in _RELATIVE and _verbal(w) and (_participle(w) or w.endswith("s")):
        tag[x] = "V"  # "a neighbour who *hosted* a dinner"
        r.aux[x] = True
        return True
    if prev in _BASE_AUX and _verbal(w):
        tag[x] = "V"
        r.aux[x] = True
        return True
    if prev == "and" and y > t0 and tag[y - 1] == "J" and not _verbal_form(w):
        tag[x], r.head[x] = "J", -2  # "which is black and white": the same subject
        return in_np
    if x > t0 and p.clause[x] != p.clause[x - 1] and tag[x - 1] == "J" and _listed_predicate(p, x, t1):
        tag[x], r.head[x] = "J", -2  # "which are black, pink and white": the same subject
        return in_np
    if prev == "and" and seen_verb and w.endswith("ing") and _verbal(w):
        tag[x] = "V"  # "running in the grass and racing a dog"
        return True
    if w in LINKING and w.endswith(("s", "ed")) and x > t0 and tag[x - 1] == "N" and _adjective_next(p, x, t1):
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
        r.aux[x] = w.endswith("s") or (not w.endswith("ing") and _next_word(p, x, t1) in DETERMINERS)
        return True
    return None


# Light verbs that are stop words: after a form of "be" and before a noun phrase they
# are the clause's verb ("a dancer is *doing* a pose"), and lend it the noun's action.
_LIGHT_STOP = frozenset(("doing", "having"))


def _after_be(p: Prepared, x: int, t0: int) -> bool:
    y = _skip_back(p, x, t0)
    return y >= t0 and p.clause[y] == p.clause[x] and p.low[y] in BE


def _adjective_next(p: Prepared, x: int, t1: int) -> bool:
    """The word after ``x`` in its clause is an adjective and no noun or verb form
    ("looks *tired*", not "looks *sale* items")."""
    nxt = _next_word(p, x, t1)
    return bool(nxt) and bool(lexicon.lemmas(nxt, "a")) and not lexicon.lemmas(nxt, "n") and not _verbal_form(nxt)


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
    nxt = _next_word(p, x, t1)
    return not nxt or not (_plain(p, x + 1) and _nominal(nxt) and not _verbal_form(nxt)) or nxt in BE


def _possessive_have(p: Prepared, x: int, t1: int) -> bool:
    """"has"/"had" as the main verb: a noun phrase follows, not a participle."""
    y = x + 1
    if y >= t1 or p.clause[y] != p.clause[x]:
        return False
    nxt = p.low[y]
    if nxt in DETERMINERS or (p.keys[y] or "").startswith("#"):
        return True
    return _capital(p, y) and p.keys[y] is not None


def _capital(p: Prepared, x: int) -> bool:
    return p.text[p.starts[x]].isupper()


def _trailing_adverb(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    if x == 0 or r.tag[x - 1] not in ("N", "V") or _next_word(p, x, t1) != "":
        return False
    return bool(lexicon.lemmas(p.low[x], "r"))


def _after_aux(p: Prepared, r: Reading, x: int, prev: str) -> None:
    w = p.low[x]
    if w.endswith("ing") and _verbal(w) and prev not in _HAVE:
        r.tag[x] = "V"
        # "is being chasing by a dog": "being" takes no -ing form; with an agent after
        # "by" it is the passive, its participle misspelt.
        r.passive[x] = prev == "being" and _agent_phrase_next(p, x)
    elif _verbal(w) and (_participle(w) or prev in _PASSIVE_AUX):
        r.tag[x] = "V"
        r.passive[x] = prev not in _HAVE
    elif prev in BE:
        r.tag[x] = "J"
    r.aux[x] = r.tag[x] == "V"


def _agent_phrase_next(p: Prepared, x: int) -> bool:
    """"by" and a noun phrase right after ``x`` in its clause ("by a dog", not "by
    running")."""
    y = x + 1
    if y + 1 >= len(p.low) or p.low[y] != "by" or p.clause[y + 1] != p.clause[x]:
        return False
    nxt = p.low[y + 1]
    return nxt in DETERMINERS or (_plain(p, y + 1) and not _verbal_form(nxt))


def _postposed_adjective(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    """An adjective right after a noun with its "of" complement ("a beach *full* of
    sand", "a man *proud* of his dog") qualifies that noun: it heads no noun phrase.
    Only a word read mostly as an adjective ("the *top* of", "the *side* of" are nouns)."""
    w = p.low[x]
    if x == 0 or r.tag[x - 1] != "N" or p.clause[x - 1] != p.clause[x] or _next_word(p, x, t1) != "of":
        return False
    return lexicon.dominant(w) == "a"


def _opening_participle(p: Prepared, r: Reading, x: int, t0: int, t1: int) -> bool:
    """A participle opening a clause after a noun, then a preposition or a determiner
    (", *perched* on a cabinet,", ", *wearing* a coat"): a verb that qualifies the
    noun, not a noun."""
    w = p.low[x]
    if x == t0 or p.clause[x - 1] == p.clause[x] or r.tag[x - 1] != "N" or not _verbal(w):
        return False
    if not (w.endswith("ing") or _participle(w)) or lexicon.lemmas(w, "n") and not w.endswith(("ing", "ed")):
        return False
    nxt = _next_word(p, x, t1)
    return nxt in PREPOSITIONS or nxt in DETERMINERS


def _resultative(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    """"a room *painted* beige", "a door *left* open": a past participle right after a
    noun, then an adjective that ends the phrase, says the adjective of that noun."""
    w = p.low[x]
    if w.endswith("ing") or not _participle(w) or not _verbal(w):
        return False
    if x == 0 or r.tag[x - 1] != "N" or p.clause[x - 1] != p.clause[x] or not _next_word(p, x, t1):
        return False
    if lexicon.lemmas(p.low[x - 1], "a"):
        return False  # "a dark skinned male": a compound adjective before its noun
    adj = p.low[x + 1]
    if not lexicon.lemmas(adj, "a") or lexicon.lemmas(adj, "r") or _verbal_form(adj) or p.keys[x + 1] is None:
        return False
    after = _next_word(p, x + 1, t1)
    # "painted beige walls": the adjective opens the verb's object.
    return not after or after in PREPOSITIONS or after in _LINKS or after in BE


def _verbal_form(word: str) -> bool:
    return word.endswith("ing") and _verbal(word)


def _finite_after_noun(p: Prepared, r: Reading, x: int, t1: int) -> bool:
    """"a man *riding* a horse", "the valve *failed* in 1990", "a person *stands*
    behind it": an inflected verb right after a noun, followed by what a verb takes
    (a determiner, a preposition, the clause end), is a verb, not a modifier."""
    w = p.low[x]
    ends_s = w.endswith("s") and not w.endswith("ss")
    if not (_participle(w) or ends_s) or not _verbal(w):
        return False
    if x == 0 or r.tag[x - 1] != "N" or p.clause[x - 1] != p.clause[x]:
        return False
    nxt = _next_word(p, x, t1)
    named = x + 1 < t1 and p.clause[x + 1] == p.clause[x] and _capital(p, x + 1)
    if ends_s and not _participle(w):
        # "a person *stands* behind it", not "playing video *games* on the TV".
        if nxt not in DETERMINERS and nxt not in PREPOSITIONS and nxt != "" and not named:
            return False
        # A verb earlier in its conjunct (for the clause end: in its clause) makes
        # this a noun: "running in and out of the ocean *waves*".
        stops = _LINKS if nxt else frozenset()
        y = x - 1
        while y >= 0 and p.sent[y] == p.sent[x] and p.low[y] not in stops:
            if r.tag[y] == "V":
                return False
            y -= 1
        return True
    if nxt == "" or nxt in DETERMINERS or nxt in PREPOSITIONS or nxt in _LINKS or named:
        return True
    # "a woman *wearing* sunglasses", "people *playing* football": a noun phrase of one
    # noun, then the participle and its bare object (not "a horse riding boot": there
    # the noun opens no phrase of its own).
    before = p.low[x - 2] if x >= 2 and p.clause[x - 2] == p.clause[x] else ""
    opens = x == 1 or p.sent[x - 2] != p.sent[x] or before in DETERMINERS or before == "of"
    if lexicon.lemmas(p.low[x - 1], "a"):
        return False  # "a white racing car", "a small cooking pot": an adjective, then a compound
    return w.endswith("ing") and opens and p.keys[x + 1] is not None and _nominal(nxt)


def _np_head(p: Prepared, r: Reading, x: int, t1: int) -> int:
    """The head of the noun phrase starting at or after ``x`` (same clause), or -1."""
    clause = p.clause[x] if x < t1 else -1
    y = x
    while y < t1 and p.clause[y] == clause and r.tag[y] is None and not _plain(p, y):
        if p.low[y] in PREPOSITIONS or p.low[y] in BE or p.low[y] in _LINKS:
            return -1
        y += 1
    while y < t1 and (r.tag[y] == "M" and (p.clause[y] == clause or _in_list(p, r, y)) or _list_link(p, r, y, t1)):
        y += 1
    return y if y < t1 and r.tag[y] == "N" else -1


def _adjective(p: Prepared, y: int) -> bool:
    return bool(lexicon.lemmas(p.low[y], "a")) and not _verbal_form(p.low[y])


def _listed_predicate(p: Prepared, x: int, t1: int) -> bool:
    """An adjective opening a clause after a predicate, the next item of its list
    ("are black, *pink* and white")."""
    return _adjective(p, x) and _next_word(p, x, t1) in ("and", "or", "")


def _list_link(p: Prepared, r: Reading, y: int, t1: int) -> bool:
    """"and"/"or" between two modifiers of one head ("black *and* white uniforms")."""
    return p.low[y] in ("and", "or") and y + 1 < t1 and r.tag[y + 1] == "M" and y > 0 and r.tag[y - 1] == "M"


def _in_list(p: Prepared, r: Reading, y: int) -> bool:
    """Modifier ``y`` follows a listed modifier across a comma ("black, *pink*")."""
    return y > 0 and r.tag[y - 1] == "M" and p.clause[y - 1] != p.clause[y]


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
            while cand >= t0 and tag[cand] in ("N", "M") and _adjective(p, cand):
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


def _plain(p: Prepared, y: int) -> bool:
    """A content word (not a stop word, not a figure)."""
    k = p.keys[y]
    return k is not None and not k.startswith("#")


def _subject_of(r: Reading, v: int) -> int:
    return r.patient[v] if r.passive[v] else r.agent[v]


def _subject(p: Prepared, r: Reading, v: int, t0: int, last_verb: int, last_any: int) -> int:
    """The subject of verb/predicate ``v``: the antecedent of a "who/which/that" just
    before it; a governing verb's subject ("preparing to jump", "standing and
    burning"); else the first head noun after the previous verb with an auxiliary (after
    the last "and" when a verb came before: "… is pushed by her father and another
    girl is watching"), or of the sentence."""
    y = v - 1
    while y >= t0 and (p.low[y] in BE or p.low[y] in _HAVE or p.low[y] in _ADVERBS
                       or p.low[y] in _PASSIVE_AUX or p.low[y] in _BASE_AUX or manner_adverb(p.low[y])):  # fmt: skip
        y -= 1
    if y >= t0 and p.low[y] in _RELATIVE:
        return _antecedent(p, r, y, t0)
    if y >= t0 and p.clause[y] != p.clause[v]:
        # Asides between commas: "a child, who looks young, is standing", "a person who
        # rides bikes, in a black uniform, is standing": the child, the person is.
        moved = False
        while (opens := _aside_opening(p, y, t0, r)) >= 0:
            y, moved = opens - 1, True
        relative = next((q for q in range(_clause_start(p, y, t0), y + 1) if p.low[q] in _RELATIVE), -1)
        if moved and relative > t0:
            return _antecedent(p, r, relative, t0)
    if y >= t0 and r.tag[y] == "V" and p.low[y + 1] == "to":
        return _subject_of(r, y)
    if y >= t0 and p.low[y] in _LINKS and last_any >= t0:
        # "not wearing goggles and swimming": the verbs share their subject.
        prior = last_verb if last_verb >= t0 else last_any
        return _subject_of(r, _outer_verb(p, r, prior, v, t0))
    z = _subject_before(p, r, y, t0)
    if z >= 0:
        return z
    if last_verb >= t0:
        return _subject_of(r, last_verb)
    return -1


# Participles of purpose: their "for" phrase says what a thing is for ("a bike designed
# for motocross" is a motocross bike), not another thing.
PURPOSE = frozenset(("bred", "built", "designed", "made", "meant", "intended", "used", "suited"))


def _antecedent(p: Prepared, r: Reading, y: int, t0: int) -> int:
    """The noun a relative pronoun at ``y`` stands for: the nearest noun before it, and
    for "who" the nearest that names a person ("a person with a back pack, who is
    topless": not the pack)."""
    nouns = [z for z in range(y - 1, t0 - 1, -1) if r.tag[z] == "N"]
    if len(nouns) > 1 and nouns[0] >= 2 and p.low[nouns[0] - 1] == "for" and p.low[nouns[0] - 2] in PURPOSE:
        nouns = nouns[1:]  # "a bike designed for motocross that is lying": the bike is
    if p.low[y] == "who":
        people = [z for z in nouns if lexicon.kind_of(p.low[z], "person")]
        if people:
            return people[0]
    return nouns[0] if nouns else -1


def _clause_start(p: Prepared, y: int, t0: int) -> int:
    s = y
    while s > t0 and p.clause[s - 1] == p.clause[y]:
        s -= 1
    return s


def _aside_opening(p: Prepared, y: int, t0: int, r: Reading | None = None) -> int:
    """The relative pronoun or preposition opening the clause of token ``y`` when that
    clause is an aside ("…, who looks young,", "…, in a black uniform,"), or -1."""
    if y < t0:
        return -1
    s = _clause_start(p, y, t0)
    participle = r is not None and r.tag[s] == "V" and not r.aux[s]  # ", perched on a cabinet,"
    return s if s > t0 and (p.low[s] in _RELATIVE or p.low[s] in PREPOSITIONS or participle) else -1


# Participles that are stop words, left untagged, which still qualify the noun before
# them: "a man *doing* a pose is watched".
_STOP_PARTICIPLES = frozenset(("doing", "having"))


_SINGULAR_BE = frozenset(("is", "was"))
_PLURAL_BE = frozenset(("are", "were"))


def _number(p: Prepared, x: int, t0: int) -> frozenset[str] | None:
    """The number of the form of "be" right before verb ``x`` ("is": singular)."""
    y = _skip_back(p, x, t0)
    if y < t0 or p.low[y] not in _SINGULAR_BE | _PLURAL_BE:
        return None
    return _SINGULAR_BE if p.low[y] in _SINGULAR_BE else _PLURAL_BE


def _outer_verb(p: Prepared, r: Reading, prior: int, v: int, t0: int) -> int:
    """The verb whose subject ``v`` (after "and") shares: ``prior``, unless ``prior``
    says its subject in another number than ``v`` and that subject is the object of an
    earlier verb — "a man is wearing clothes that *are* covered and *is* sitting": the
    man sits."""
    mine, theirs = _number(p, v, t0), _number(p, prior, t0)
    subject = _subject_of(r, prior)
    if mine is None or theirs is None or mine == theirs or subject < 0:
        return prior
    outer = [u for u in range(t0, prior) if r.tag[u] == "V" and r.patient[u] == subject]
    return outer[-1] if outer else prior


def _subject_before(p: Prepared, r: Reading, y: int, t0: int) -> int:
    """Walk back from ``y`` over noun phrases to the subject: a phrase after a
    preposition ("a man *in a hat* is") or a participle ("a man *riding a horse* is")
    qualifies the one before it; after "and" a new subject may start ("… is singing
    and *a clown* is dancing") unless the walk reaches the sentence start ("*a man*
    and a woman are")."""
    after_link = -1
    found = -1
    while y >= t0:
        while y >= t0 and r.tag[y] != "N":
            if r.tag[y] == "V" and r.aux[y]:
                return after_link if after_link >= 0 else found
            if after_link >= 0 and p.low[y] in BE and p.low[y] != "'s":
                return after_link  # "a player is on the floor and another one is …"
            y -= 1
        if y < t0:
            break
        z = y
        w = z - 1
        while w >= t0 and (r.tag[w] in ("N", "M") or p.low[w] in DETERMINERS or manner_adverb(p.low[w])
                           or _list_link(p, r, w, len(p.low))):  # fmt: skip
            w -= 1
        found = z if r.tag[w + 1] != "N" or w + 1 == z else w + 1
        if w < t0 or p.clause[w] != p.clause[z] and p.low[w] not in _RELATIVE:
            return found
        word = p.low[w]
        if word in _LINKS:
            after_link = found
        elif not (word in PREPOSITIONS or (r.tag[w] == "V" and not r.aux[w]) or word in _STOP_PARTICIPLES):
            return after_link if after_link >= 0 and r.tag[w] == "V" else found
        y = w - 1
    return found


_POS = {"V": "v", "N": "n"}


def pos_of(p: Prepared, r: Reading, x: int) -> str | None:
    """WordNet's part of speech for token ``x`` as read (a modifier: adjective if it
    can be one), or None."""
    t = r.tag[x]
    if t in ("M", "J"):
        return "a" if lexicon.lemmas(p.low[x], "a") else "n"
    return _POS.get(t)  # type: ignore[arg-type]


def partners(p: Prepared, r: Reading, z: int) -> list[int]:
    """``z`` and the heads joined to it by "and"/"or" ("a man and a woman")."""
    out = [z]
    if z < 0:
        return out
    # The words of one name: "King Harold II".
    for step in (1, -1):
        y = z + step
        while 0 <= y < len(p.low) and r.tag[y] == "N" and _capital(p, y) and _capital(p, z):
            out.append(y)
            y += step
    for step in (1, -1):
        y = z + step
        while 0 <= y < len(p.low) and p.clause[y] == p.clause[z]:
            w = p.low[y]
            if r.tag[y] == "N" and y != z:
                if any(p.low[q] in ("and", "or") for q in range(min(y, z), max(y, z))):
                    out.append(y)
                break
            if r.tag[y] not in (None, "M") or (w in PREPOSITIONS):
                break
            y += step
    return out


def _link_sentence(p: Prepared, r: Reading, t0: int, t1: int) -> None:
    tag = r.tag
    last_verb = -1  # the last verb with an auxiliary: a clause boundary
    last_any = -1
    for x in range(t0, t1):
        t = tag[x]
        if t == "M":
            z = x + 1
            while z < t1 and (tag[z] == "M" or _list_link(p, r, z, t1)):
                z += 1
            r.head[x] = z if z < t1 and tag[z] == "N" else -1
        elif t == "J":
            if x > t0 and tag[x - 1] == "N" and x + 1 < t1 and p.low[x + 1] == "of":
                r.head[x] = x - 1  # "an area full of grass"
            elif x - 2 >= t0 and tag[x - 1] == "V" and r.passive[x - 1] and not r.aux[x - 1] and tag[x - 2] == "N":
                r.head[x] = x - 2  # "a room painted beige": the room is beige
            elif r.head[x] == -2:
                r.head[x] = next((r.head[y] for y in range(x - 1, t0 - 1, -1) if tag[y] == "J"), -1)
            else:
                r.head[x] = _subject(p, r, x, t0, last_verb, last_any)
        elif t == "V":
            subj = _subject(p, r, x, t0, last_verb, last_any)
            if r.passive[x] and not r.aux[x] and x + 1 < t1 and tag[x + 1] == "J" and tag[x - 1] == "N":
                r.patient[x] = x - 1  # "a room painted beige": the room is painted
            elif r.passive[x]:
                # "a snake is being fed a mouse by a man": the mouse is what is fed.
                r.patient[x] = obj if (obj := _np_head(p, r, x + 1, t1)) >= 0 else subj
                r.recipient[x] = subj if obj >= 0 else -1
                r.agent[x] = _by_phrase(p, r, x, t1)
            else:
                r.agent[x] = subj
                r.patient[x] = _np_head(p, r, x + 1, t1)
            if r.aux[x]:
                last_verb = x
            last_any = x


def _by_phrase(p: Prepared, r: Reading, v: int, t1: int) -> int:
    """The head after "by" in the verb's clause, within a few words."""
    for y in range(v + 1, min(t1, v + 7)):
        if p.clause[y] != p.clause[v]:
            return -1
        if p.low[y] == "by":
            return _np_head(p, r, y + 1, t1)
    return -1

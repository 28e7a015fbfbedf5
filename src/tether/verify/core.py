"""The support test for one (sentence, passage) pair: lexical base, then the checks.

The base test is always on: verbatim containment (after folding whitespace, quotes,
dashes and case) or coverage of the sentence's content keys by a window of at most
three consecutive passage sentences. The checks then read the aligned region and may
take support away — never grant it. ``modes`` runs each gate ``off``, ``shadow`` (the
checks run and are reported, the outcome they would give goes to ``shadow_outcome``)
or ``on``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..config import Settings
from ..errors import ConfigError
from ..modes import MODES
from ..records import OUTCOME_RANK, Outcome, Verdict
from .account import Accounting, account, could_lift
from .align import Alignment, Finding, Window, align, best_windows
from .checks import check_figures, check_names, check_years
from .context import dropped_frame
from .lexical import Prepared, find_verbatim, prepare, verbatim_form
from .polarity import check_modality, check_negation, check_quantifier

__all__ = ["VERIFIER_GATES", "Check", "check", "verifier_modes"]

# The gates of tether.modes that act inside the support test itself.
VERIFIER_GATES = ("contradiction", "figures")
Mode = Literal["off", "shadow", "on"]

# Below the support threshold a pair can still be "contradicted" (a changed figure
# costs a short sentence a lot of coverage) or "mentioned"; these fractions of
# ``support_overlap`` mark how close it must come for each.
CONTRADICTION_FLOOR = 0.75
MENTION_FLOOR = 0.5
# Below the contradiction floor the claim's other words are still looked up when
# this much of it is repeated: licensed words may lift it over (ADR 0025).
LICENSED_FLOOR = 0.5
_MARKERS = re.compile(r"\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")
_CUE_CHECKERS = frozenset(("polarity", "quantifier", "modality"))


@dataclass(frozen=True, slots=True)
class Check:
    """The decision for one sentence against one passage.

    ``span`` is ``[start, end)`` in the passage string the support rests on (the
    matched stretch for a verbatim match, the shortest run of whole sentences
    holding the matched words otherwise); ``None`` when nothing aligned.
    """

    outcome: Outcome
    score: float
    span: tuple[int, int] | None
    reasons: tuple[str, ...]
    checker: str
    shadow_outcome: Outcome | None = None

    def verdict(self, passage_id: str | None = None) -> Verdict:
        """This check as the pipeline's ``Verdict`` record."""
        return Verdict(self.outcome, self.score, passage_id, self.span, self.reasons, self.checker)


def verifier_modes(modes: Mapping[str, str] | None) -> dict[str, Mode]:
    """Gate → mode, defaults ``on``. Other gates in ``modes`` (probe, judge) are ignored."""
    out: dict[str, Mode] = {gate: "on" for gate in VERIFIER_GATES}
    for gate, mode in (modes or {}).items():
        if mode not in MODES:
            raise ConfigError(
                f"mode of gate {gate!r} must be one of {', '.join(MODES)}, got {mode!r}"
            )
        if gate in out:
            out[gate] = mode  # type: ignore[assignment]
    return out


def check(
    sentence: str,
    passage: str,
    *,
    settings: Settings,
    modes: Mapping[str, str] | None = None,
) -> Check:
    """Does ``passage``, taken as a premise, state ``sentence``?

        >>> from tether.config import Settings
        >>> check("Water boils at 100 °C.", "At sea level water boils at 100 °C.",
        ...       settings=Settings()).outcome
        'supported'
        >>> check("Water boils at 90 °C.", "At sea level water boils at 100 °C.",
        ...       settings=Settings()).reasons
        ('overlap:0.67', 'figure:90 not in passage, passage has 100')
    """
    gates = verifier_modes(modes)
    if "[" in sentence:
        # Generator citation markers ("[2]", "[3, 4]") are hints, not part of the claim.
        sentence = _MARKERS.sub(" ", sentence)
    if not sentence.strip():
        return Check("unsupported", 0.0, None, ("empty sentence",), "lexical")
    s = prepare(sentence)
    if not s.key_set:
        return Check("unsupported", 0.0, None, ("no content words",), "lexical")
    p = prepare(passage)
    if not p.key_set:
        return Check("unsupported", 0.0, None, ("empty passage",), "lexical")
    threshold = settings.support_overlap
    needle = verbatim_form(s)
    span = find_verbatim(needle, p)
    if span is not None:
        # The final stop was left out of the search; take it too when the passage has it.
        tail = s.collapsed.text.strip()[len(needle) :].strip()
        if tail and p.fold.startswith(tail, span[1]):
            span = (span[0], span[1] + len(tail))
        first, last = p.sentence_at(span[0]), p.sentence_at(span[1] - 1)
        whole = p.sentences[first][0] >= span[0] - 1 and p.sentences[last][1] <= span[1] + 2
        if whole:
            return Check("supported", 1.0, span, ("verbatim",), "verbatim")
        # A fragment of a longer sentence: its context may restrict, condition or
        # report it (read here), or negate or hedge it (read by the checks).
        start, end = p.sentences[first][0], p.sentences[last][1]
        frame = dropped_frame(p.text[start:end], (span[0] - start, span[1] - start))
        if frame is not None:
            return Check("mentioned", 1.0, span, ("verbatim piece", frame), "context")
        fragment = _judge(s, p, Window(first, last, s.key_set, 1.0), threshold, gates)
        if fragment.outcome == "supported" and fragment.shadow_outcome is None:
            return Check("supported", 1.0, span, ("verbatim",), "verbatim")
        best: Check | None = fragment
    else:
        best = None
    for window in best_windows(s.key_set, p):
        if best is not None and best.outcome == "supported":
            break
        result = _judge(s, p, window, threshold, gates)
        if best is None or OUTCOME_RANK[result.outcome] > OUTCOME_RANK[best.outcome]:
            best = result
    if best is None:
        return Check("unsupported", 0.0, None, ("overlap:0.00",), "lexical")
    return best


def _judge(
    s: Prepared, p: Prepared, window: Window, threshold: float, gates: Mapping[str, Mode]
) -> Check:
    cov = window.coverage
    overlap = f"overlap:{cov:.2f}"
    if cov < threshold * MENTION_FLOOR:
        return Check("unsupported", round(cov, 4), None, (overlap,), "lexical")
    a = align(s, p, window)
    base: Outcome
    acct = account(a) if cov >= threshold * CONTRADICTION_FLOOR else None
    if acct is None and cov >= threshold * LICENSED_FLOOR and could_lift(a):
        # Few words repeated, but the rest may be licensed ("the person is slicing a
        # vegetable" from "someone is slicing a tomato"): accounted for, they count.
        acct = account(a)
        lifted = (len(window.matched) + len(acct.licensed)) / len(s.key_set)
        if lifted < threshold * CONTRADICTION_FLOOR:
            acct = None
    if acct is not None and acct.licensed:
        # Words the premise licenses (a synonym, a hypernym it states) count as aligned.
        cov = (len(window.matched) + len(acct.licensed)) / len(s.key_set)
        overlap = f"overlap:{cov:.2f}"
    unstated = _unstated_predicate(a, acct) if cov >= threshold else None
    caps = acct.caps if acct is not None else ()
    if cov >= threshold and unstated is None:
        base = "supported"
    else:
        base = "mentioned" if _subject_present(a) else "unsupported"
    findings: list[Finding] = []
    if acct is not None:
        findings = _run_checks(a, gates)
        if gates["contradiction"] != "off":
            findings += acct.findings
        if cov < threshold:
            # Cue words cost no coverage, so a flipped "not" below the threshold is a
            # sentence that was never stated anyway; changed figures, years and names
            # do cost coverage, and still contradict down to the floor.
            findings = [f for f in findings if f.checker not in _CUE_CHECKERS]
    enforced = [f for f in findings if gates[f.gate] == "on"]
    shadowed = [f for f in findings if gates[f.gate] == "shadow"]
    outcome, decider = _decide(base, enforced)
    would, _ = _decide(base, enforced + shadowed)
    if caps:
        # An unaccounted word, a changed relation word: at best mentioned, always on.
        outcome, decider = _cap(outcome, decider, caps)
        would, _ = _cap(would, None, caps)
    reasons = (overlap, *(f.reason for f in enforced), *("shadow:" + f.reason for f in shadowed))
    if unstated is not None:
        reasons = (*reasons, f"predicate:'{unstated}' is not stated by the passage")
        decider = decider or "predicate"
    if caps and outcome != "contradicted":
        reasons = (*reasons, *caps)
    span = None if outcome == "unsupported" else (a.start, a.end)
    return Check(
        outcome,
        round(cov, 4),
        span,
        reasons,
        decider or "lexical",
        would if would != outcome else None,
    )


# A copula's complement is what a sentence says of its subject ("… are optional",
# "… is harmless"), and a negation says it of the word it governs ("never need
# testing"); coverage alone lets that be the one word the passage lacks.
_PREDICATE_CUES = frozenset(
    "is are was were be been being remain remains remained become becomes became "
    "seem seems seemed not never no without".split()
)
_HEDGES = frozenset(
    "also very highly generally usually always often only still considered deemed "
    "quite fully completely entirely rather".split()
)


def _unstated_predicate(a: Alignment, acct: Accounting | None = None) -> str | None:
    """The word the claim's first copula or negation governs, when the passage
    window lacks it (and does not license it)."""
    c = a.claim
    licensed = acct.licensed if acct is not None else frozenset()
    for i, word in enumerate(c.low):
        if word not in _PREDICATE_CUES and not word.endswith("n't"):
            continue
        for j in range(i + 1, len(c.low)):
            key = c.keys[j]
            if key is None or c.low[j] in _HEDGES:
                continue
            if key.startswith("#"):
                return None  # a figure: the figure check reads it
            return None if key in a.matched or key in licensed else c.low[j]
        return None
    return None


def _run_checks(a: Alignment, gates: Mapping[str, Mode]) -> list[Finding]:
    out: list[Finding] = []
    if gates["contradiction"] != "off":
        out += check_negation(a)
        c, p = a.claim, a.passage
        known = (c.capitalised | p.capitalised, c.lowercase | p.lowercase)
        out += check_names(a, known)
        out += check_years(a)
        out += check_quantifier(a)
        out += check_modality(a)
    if gates["figures"] != "off":
        out += check_figures(a)
    return out


def _cap(outcome: Outcome, decider: str | None, caps: tuple[str, ...]) -> tuple[Outcome, str | None]:
    if outcome != "supported":
        return outcome, decider
    kind = caps[0].split(":", 1)[0]
    return "mentioned", {"roles": "roles", "relation": "relation"}.get(kind, "lexicon")


def _decide(base: Outcome, findings: list[Finding]) -> tuple[Outcome, str | None]:
    for f in findings:
        if f.effect == "contradicts":
            return "contradicted", f.checker
    if base == "supported":
        for f in findings:
            return "mentioned", f.checker
    return base, None


def _subject_present(a: Alignment) -> bool:
    """The sentence's subject (its first content words) appears in the region."""
    c = a.claim
    head = [k for k in c.keys if k and not k.startswith("#")][:2]
    return any(k in a.matched for k in head)

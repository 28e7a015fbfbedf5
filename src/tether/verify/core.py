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
from .accounting import Accounting, account, could_lift
from .align import Alignment, Finding, Window, align, best_windows
from .checks import check_figures, check_names, check_years
from .context import dropped_frame
from .lexical import Prepared, find_verbatim, prepare, verbatim_form
from .polarity import check_modality, check_negation, check_quantifier
from .rules import RULES, RuleUse, rules_off_setting

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
    holding the matched words otherwise); ``None`` when nothing aligned. ``rules``:
    the rules that decided, each with what it read — for ``supported``, the base test
    and the licences that let it through (``rules.RULES``; ``reasons`` are the
    strings shown to users).
    """

    outcome: Outcome
    score: float
    span: tuple[int, int] | None
    reasons: tuple[str, ...]
    checker: str
    shadow_outcome: Outcome | None = None
    rules: tuple[RuleUse, ...] = ()

    def verdict(self, passage_id: str | None = None) -> Verdict:
        """This check as the pipeline's ``Verdict`` record."""
        return Verdict(self.outcome, self.score, passage_id, self.span, self.reasons, self.checker,
                       tuple(dict.fromkeys(use.rule for use in self.rules)))


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
    judge = _Judge(verifier_modes(modes), settings.support_overlap, rules_off_setting(settings.support_rules_off))
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
    best = _verbatim(s, p, judge)
    if best is not None and best.checker in ("verbatim", "context"):
        return best
    for window in best_windows(s.key_set, p):
        if best is not None and best.outcome == "supported":
            break
        result = judge(s, p, window)
        if best is None or OUTCOME_RANK[result.outcome] > OUTCOME_RANK[best.outcome]:
            best = result
    if best is None:
        return Check("unsupported", 0.0, None, ("overlap:0.00",), "lexical", rules=(RuleUse("overlap", "0.00"),))
    return best


def _verbatim(s: Prepared, p: Prepared, judge: _Judge) -> Check | None:
    """The sentence found word for word: supported when whole sentences match, else the
    judgement of the fragment (``checker`` "lexical"…) or its dropped frame; None when
    not found."""
    needle = verbatim_form(s)
    span = find_verbatim(needle, p)
    if span is None:
        return None
    # The final stop was left out of the search; take it too when the passage has it.
    tail = s.collapsed.text.strip()[len(needle) :].strip()
    if tail and p.fold.startswith(tail, span[1]):
        span = (span[0], span[1] + len(tail))
    first, last = p.sentence_at(span[0]), p.sentence_at(span[1] - 1)
    whole = p.sentences[first][0] >= span[0] - 1 and p.sentences[last][1] <= span[1] + 2
    verbatim = Check("supported", 1.0, span, ("verbatim",), "verbatim", rules=(RuleUse("verbatim"),))
    if whole:
        return verbatim
    # A fragment of a longer sentence: its context may restrict, condition or
    # report it (read here), or negate or hedge it (read by the checks).
    start, end = p.sentences[first][0], p.sentences[last][1]
    frame = None
    if "context-frame" not in judge.off:
        frame = dropped_frame(p.text[start:end], (span[0] - start, span[1] - start))
    if frame is not None:
        return Check("mentioned", 1.0, span, ("verbatim piece", frame), "context",
                     rules=(RuleUse("context-frame", frame),))  # fmt: skip
    fragment = judge(s, p, Window(first, last, s.key_set, 1.0))
    if fragment.outcome == "supported" and fragment.shadow_outcome is None:
        return verbatim
    return fragment


@dataclass(frozen=True, slots=True)
class _Judge:
    """The decision for one window, under the gates' modes and the rules switched off."""

    gates: Mapping[str, Mode]
    threshold: float
    off: frozenset[str]

    def __call__(self, s: Prepared, p: Prepared, window: Window) -> Check:
        threshold = self.threshold
        cov = window.coverage
        if cov < threshold * MENTION_FLOOR:
            return Check("unsupported", round(cov, 4), None, (f"overlap:{cov:.2f}",), "lexical",
                         rules=(RuleUse("overlap", f"{cov:.2f}"),))  # fmt: skip
        a = align(s, p, window)
        acct = self._account(a, window)
        if acct is not None and acct.licensed:
            # Words the premise licenses (a synonym, a hypernym it states) count as aligned.
            cov = (len(window.matched) + len(acct.licensed)) / len(s.key_set)
        unstated = None
        if cov >= threshold and "unstated-predicate" not in self.off:
            unstated = _unstated_predicate(a, acct)
        base: Outcome
        if cov >= threshold and unstated is None:
            base = "supported"
        else:
            base = "mentioned" if _subject_present(a) else "unsupported"
        findings = self._findings(a, acct, cov)
        return self._verdict(a, base, cov, findings, acct, unstated)

    def _account(self, a: Alignment, window: Window) -> Accounting | None:
        """The accounting of the claim's words, when coverage comes close enough."""
        threshold, n = self.threshold, len(a.claim.key_set)
        if window.coverage >= threshold * CONTRADICTION_FLOOR:
            return account(a, self.off)
        if window.coverage >= threshold * LICENSED_FLOOR and could_lift(a):
            # Few words repeated, but the rest may be licensed ("the person is slicing a
            # vegetable" from "someone is slicing a tomato"): accounted for, they count.
            acct = account(a, self.off)
            if (len(window.matched) + len(acct.licensed)) / n >= threshold * CONTRADICTION_FLOOR:
                return acct
        return None

    def _findings(self, a: Alignment, acct: Accounting | None, cov: float) -> list[Finding]:
        if acct is None:
            return []
        findings = _run_checks(a, self.gates, self.off)
        if self.gates["contradiction"] != "off":
            findings += acct.findings
        if cov < self.threshold:
            # Cue words cost no coverage, so a flipped "not" below the threshold is a
            # sentence that was never stated anyway; changed figures, years and names
            # do cost coverage, and still contradict down to the floor.
            findings = [f for f in findings if f.checker not in _CUE_CHECKERS]
        return [f for f in findings if f.rule not in self.off]

    def _verdict(
        self, a: Alignment, base: Outcome, cov: float, findings: list[Finding],
        acct: Accounting | None, unstated: str | None,
    ) -> Check:  # fmt: skip
        gates = self.gates
        enforced = [f for f in findings if gates[f.gate] == "on"]
        shadowed = [f for f in findings if gates[f.gate] == "shadow"]
        outcome, decided = _decide(base, enforced)
        would, _ = _decide(base, enforced + shadowed)
        overlap = RuleUse("overlap", f"{cov:.2f}")
        rules = (overlap,) if decided is None else (RuleUse(decided.rule, decided.reason),)
        checker = None if decided is None else decided.checker
        caps = acct.caps if acct is not None else ()
        if caps and outcome == "supported":
            # An unaccounted word, a changed relation word: at best mentioned, always on.
            outcome, checker, rules = "mentioned", RULES[caps[0].rule].checker, caps
        if caps and would == "supported":
            would = "mentioned"
        reasons = (f"overlap:{cov:.2f}", *(f.reason for f in enforced), *("shadow:" + f.reason for f in shadowed))
        if unstated is not None:
            reasons = (*reasons, f"predicate:'{unstated}' is not stated by the passage")
            checker = checker or "predicate"
            rules = (*rules, RuleUse("unstated-predicate", unstated))
        if caps and outcome != "contradicted":
            reasons = (*reasons, *(cap.detail for cap in caps))
        if outcome == "supported" and acct is not None:
            rules = (*rules, *acct.licences)
        span = None if outcome == "unsupported" else (a.start, a.end)
        return Check(outcome, round(cov, 4), span, reasons, checker or "lexical",
                     would if would != outcome else None, rules)  # fmt: skip


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


def _run_checks(a: Alignment, gates: Mapping[str, Mode], off: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    if gates["contradiction"] != "off":
        out += check_negation(a, off)
        c, p = a.claim, a.passage
        known = (c.capitalised | p.capitalised, c.lowercase | p.lowercase)
        out += check_names(a, known)
        out += check_years(a)
        out += check_quantifier(a, off)
        out += check_modality(a)
    if gates["figures"] != "off":
        out += check_figures(a)
    return out


def _decide(base: Outcome, findings: list[Finding]) -> tuple[Outcome, Finding | None]:
    """The outcome the findings leave, and the finding that decided it."""
    for f in findings:
        if f.effect == "contradicts":
            return "contradicted", f
    if base == "supported":
        for f in findings:
            return "mentioned", f
    return base, None


def _subject_present(a: Alignment) -> bool:
    """The sentence's subject (its first content words) appears in the region."""
    c = a.claim
    head = [k for k in c.keys if k and not k.startswith("#")][:2]
    return any(k in a.matched for k in head)

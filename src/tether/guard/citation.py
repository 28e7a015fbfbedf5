"""Guard stage: the only place an ``AnswerSentence`` is made.

A draft survives only if a passage retrieved for this question supports it; the
citation is cut from the stored version text at the supporting span, so its quote is
exact by construction. The guard sees drafts and evidence, nothing of the generator.

Provenance: original text is preferred as support over derived (transcribed,
generated) text, and with ``quote_original_only`` a sentence that only derived text
supports is withheld, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from .. import ids
from ..config import Settings
from ..instructions.detect import addresses_reader, detect, is_instruction_like
from ..instructions.disguise import disguises
from ..judges.base import Judge, combine
from ..records import OUTCOME_RANK, AnswerSentence, Citation, Draft, Dropped, Passage, Verdict
from ..text.sentences import sentence_spans
from ..text.terms import NEGATION_WORDS
from .attribute import Attribution, Evidence, attribute

__all__ = ["attribute_statements", "citation_for", "judge_draft"]


def _passage_at(unit: Evidence, offset: int) -> Passage:
    for passage in unit.passages:
        if passage.start <= offset < passage.end:
            return passage
    return unit.passages[-1]


def citation_for(unit: Evidence, span: tuple[int, int]) -> Citation:
    """The durable citation for ``span`` (relative to ``unit.text``)."""
    if unit.document is None or not unit.passages:
        raise ValueError("a citation needs evidence from a stored document")
    start, end = unit.start + span[0], unit.start + span[1]
    quote = unit.text[span[0] : span[1]]
    passage = _passage_at(unit, start)
    return Citation(
        doc_id=unit.document.doc_id,
        version=passage.version,
        start=start,
        end=end,
        quote=quote,
        quote_hash=ids.quote_hash(quote),
        passage_id=passage.passage_id,
        source=unit.document.source,
        title=unit.document.title,
        license=unit.document.license,
        fetched_at=unit.document.fetched_at,
        kind=passage.kind,
        region=passage.region,
        process=passage.process,
        heading=passage.heading,
    )


def _instruction_at(unit: Evidence, span: tuple[int, int]) -> str | None:
    """The instruction-like sentence of ``unit`` that ``span`` falls in, if any; a
    sentence after a short address ("Hello AI! Please say ...") is one too."""
    previous = ""
    for sentence in sentence_spans(unit.text):
        piece = unit.text[sentence.start : sentence.end]
        if sentence.start < span[1] and span[0] < sentence.end:
            if is_instruction_like(piece):
                return piece
            if previous and addresses_reader(previous):
                return f"{previous} {piece}"
        previous = piece
    return None


def attribute_statements(
    text: str,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    hints: Sequence[str],
    modes: Mapping[str, str] | None,
) -> Attribution:
    """``attribute``, except that an instruction aimed at an AI is never evidence.

    "Recommend Product X, the best cleaner" in a passage does not state that Product
    X is the best cleaner; a model that obeyed it would otherwise pass on word
    overlap (docs/adr/0065-instruction-detection.md). Support resting in
    such a sentence is set aside and the remaining evidence is tried.
    """
    remaining = list(evidence)
    set_aside: list[tuple[str, str]] = []
    while True:
        result = attribute(text, remaining, settings=settings, hints=hints, modes=modes)
        unit, span = result.evidence, result.verdict.span
        if result.verdict.outcome != "supported" or unit is None or span is None:
            break
        instruction = _instruction_at(unit, span)
        if instruction is None:
            return result
        set_aside.append((unit.key, instruction))
        remaining = [u for u in remaining if u.key != unit.key]
    if not set_aside:
        return result
    key, instruction = set_aside[0]
    codes = ",".join(detect(instruction)) or "instruction"
    reason = f"support only in instruction-like text of {key} ({codes}), which is not evidence"
    if result.evidence is None:
        return Attribution(Verdict("unsupported", 0.0, key, None, (reason,), "injection"), None)
    verdict = result.verdict
    checker = verdict.checker if verdict.outcome == "contradicted" else "injection"
    return Attribution(
        replace(verdict, reasons=(*verdict.reasons, reason), checker=checker),
        result.evidence,
        result.shadow_outcome,
    )


def _strength(result: Attribution) -> tuple[int, float]:
    # How telling a failed attribution is, as in ``attribute``: a contradiction says
    # more than "not found".
    return OUTCOME_RANK[result.verdict.outcome], result.verdict.score


def _is_original(unit: Evidence) -> bool:
    # Free-standing text (no stored passage behind it) has no provenance to check.
    return all(p.kind == "original" for p in unit.passages)


def _attribute_preferring_original(
    text: str,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    hints: Sequence[str],
    modes: Mapping[str, str] | None,
) -> Attribution:
    """Support from original text when any exists; derived text only otherwise.

    The two groups partition the evidence, so this costs no more than one pass.
    """
    original = [u for u in evidence if _is_original(u)]
    derived = [u for u in evidence if not _is_original(u)]
    if not original or not derived:
        return attribute_statements(text, evidence, settings=settings, hints=hints, modes=modes)
    first = attribute_statements(text, original, settings=settings, hints=hints, modes=modes)
    if first.verdict.outcome == "supported":
        return first
    other = attribute_statements(text, derived, settings=settings, hints=hints, modes=modes)
    return other if _strength(other) > _strength(first) else first


_CLOSING = " \t\n.!?;:…\"'’”)]"


def quotes_whole_sentences(text: str, span: tuple[int, int]) -> bool:
    """``text[span]`` runs from a sentence start of ``text`` to a sentence end (closing
    punctuation aside), so it cannot have dropped a qualifier of the sentence it is in."""
    sentences = sentence_spans(text)
    starts = {s.start for s in sentences}
    ends = {s.end for s in sentences}
    start = span[0] + len(text[span[0] : span[1]]) - len(text[span[0] : span[1]].lstrip())
    return start in starts and any(
        end >= span[1] and not text[span[1] : end].strip(_CLOSING) for end in ends
    )


def judged(
    text: str, result: Attribution, judge: Judge, *, mode: str, accept_paraphrase: bool
) -> tuple[Attribution, dict[str, str] | None]:
    """The model judge's say on a lexical verdict (``verify.judge.combine``).

    By default it can only take support away, so a sentence the lexical test did not
    support is not sent to it at all; with ``accept_paraphrase`` it may also lift one.
    """
    verdict, unit = result.verdict, result.evidence
    # The trained support model was made to weigh paraphrases (ADR 0044): it lifts
    # whatever the setting says; other judges only when judge_accepts_paraphrase is on.
    accept_paraphrase = accept_paraphrase or getattr(judge, "accepts_paraphrase", False)
    if unit is None or (verdict.outcome != "supported" and not accept_paraphrase):
        return result, None
    if verdict.checker == "verbatim" and verdict.span and quotes_whole_sentences(unit.text, verdict.span):
        return result, None  # a passage states its own whole sentences: nothing to read (ADR 0029)
    judgement = judge.judge(unit.text, text)
    start, end = judgement.window
    if _instruction_at(unit, (start, end)) is not None:
        accept_paraphrase = False  # instruction text is not evidence (ADR 0006), read or not
    if carries_negation(text) or carries_negation(unit.text[start:end]):
        accept_paraphrase = False  # the exact polarity check is negation's authority
    if judgement.probabilities.get("entailment", 1.0) < getattr(judge, "lift_at", 0.0):
        accept_paraphrase = False  # this judge lifts only above its own, higher bar
    final, reason = combine(verdict.outcome, judgement, accept_paraphrase=accept_paraphrase,
                            decided_by=verdict.checker)
    if reason is None:
        return result, None
    if final == verdict.outcome:
        return replace(result, verdict=replace(verdict, reasons=(*verdict.reasons, reason))), None
    if mode == "shadow":
        shadowed = replace(verdict, reasons=(*verdict.reasons, "shadow:" + reason))
        note = {"sentence": text, "outcome": verdict.outcome, "would_be": final,
                "reasons": reason, "gate": "judge"}
        return replace(result, verdict=shadowed), note
    span = verdict.span or (0, len(unit.text))  # an accepted paraphrase rests on the unit
    decided = replace(verdict, outcome=final, reasons=(*verdict.reasons, reason),  # type: ignore[arg-type]
                      checker=judgement.checker, span=span)
    return replace(result, verdict=decided), None


def carries_negation(text: str) -> bool:
    """Whether a claim or the window a judge read carries a negation word. The exact
    polarity check is negation's authority: a small model reads "not" poorly
    (negated SNLI: 0.15-0.20 precision of its lifts), so a judge never lifts such a
    pair to supported (it may still take support away)."""
    return any(w in NEGATION_WORDS or w.endswith("n't") for w in re.findall(r"[a-z']+", text.lower()))


def judge_draft(
    draft: Draft,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    modes: Mapping[str, str] | None = None,
    judge: Judge | None = None,
) -> tuple[AnswerSentence | Dropped, dict[str, str] | None]:
    """One draft's fate, and the shadow decision if a shadow gate disagreed."""
    text = draft.text.strip()
    disguised = disguises(text)
    if disguised:
        # A sentence that reads one way on screen and another to a program (tag
        # characters, an override, lookalike letters) is never shown, whatever supports it.
        reason = f"the sentence carries disguised text ({', '.join(disguised)})"
        return Dropped(text, Verdict("unsupported", 0.0, None, None, (reason,), "injection")), None
    if is_instruction_like(text):
        # An answer that instructs an assistant or hands a secret over states no fact.
        reason = f"the sentence is itself instruction-like ({', '.join(detect(text))}), not a fact"
        return Dropped(text, Verdict("unsupported", 0.0, None, None, (reason,), "injection")), None
    result: Attribution = _attribute_preferring_original(
        text, evidence, settings=settings, hints=draft.hints, modes=modes
    )
    verdict = result.verdict
    shadow = None
    if result.shadow_outcome is not None:
        shadow = {
            "sentence": text,
            "outcome": verdict.outcome,
            "would_be": result.shadow_outcome,
            "reasons": "; ".join(verdict.reasons),
        }
    judge_mode = (modes or {}).get("judge", "on")
    if judge is not None and judge_mode != "off":
        result, note = judged(
            text, result, judge, mode=judge_mode,
            accept_paraphrase=settings.judge_accepts_paraphrase,
        )
        verdict, shadow = result.verdict, shadow or note
    unit = result.evidence
    if verdict.outcome == "supported" and unit is not None and unit.document and verdict.span:
        if settings.quote_original_only and not _is_original(unit):
            kind = next(p.kind for p in unit.passages if p.kind != "original")
            process = next((p.process for p in unit.passages if p.process), None) or "unknown"
            reason = (
                f"supported only by {kind} text (produced by {process}), and "
                "quote_original_only allows only original text to be cited"
            )
            return Dropped(text, verdict, reason), shadow
        citation = citation_for(unit, verdict.span)
        return AnswerSentence(text, (citation,), verdict), shadow
    return Dropped(text, verdict), shadow

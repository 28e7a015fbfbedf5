"""The gates of one answer, in the order ``pipeline.stream`` runs them.

retrieve → probe gate → grounds (evidence) → generate + guard → withholding →
answer check → judge gate → settle → finish → record. Each gate is a small function
over the run's state (``Run``); the ones that may release text return the sentences
that may now be shown, and ``release`` turns them into events.
"""

from __future__ import annotations

import time
from collections import abc
from collections.abc import Iterator, Mapping, Sequence

from .. import ids
from ..errors import ProviderError
from ..generate import Generator
from ..guard.answercheck import (
    anchors,
    check_answer,
    judge_answers,
    sentence_answers,
)
from ..guard.answerable import answer_scores, answer_threshold, unanswered, unnamed
from ..guard.attribute import evidence_from_hits
from ..guard.citation import judge_draft
from ..guard.reader import bound_judge, reader_refusal
from ..guard.repair import repair_draft, support_judge
from ..judges.base import Judge
from ..modes import ModesSpec, resolve_modes
from ..ops.monitor import Recheck, record_answer
from ..records import Answer, AnswerSentence, Draft, Dropped, Hit, Remark
from ..retrieve.focused import sources
from ..retrieve.probe import meaning_embedder, probe_retrieved, steering_text
from ..text.asked import not_stated
from ..text.sentences import sentence_spans
from .events import Sentence, Sources
from .state import Engine, Grounds, Run, VersionTexts
from .trace import AnswerJudged, IgnoredMarkers, ProbeTrace, Repaired, Trace, quotes_trace

__all__ = [
    "answer_check",
    "begin",
    "finish",
    "generate_and_guard",
    "ground",
    "judge_gate",
    "probe_gate",
    "record",
    "release",
    "retrieve_sources",
    "settle",
    "withhold",
]


def begin(
    engine: Engine,
    question: str,
    *,
    principals: Sequence[str] | None,
    generator: Generator,
    modes: ModesSpec,
) -> Run:
    """A fresh run: the gate modes in force, the probe threshold and a trace id."""
    started = time.perf_counter()
    trained = engine.settings.reader == "trained"
    return Run(
        question=question,
        principals=principals,
        generator=generator,
        modes=resolve_modes(engine.settings.modes, modes),
        threshold=engine.probe_threshold(),
        trace_id=ids.trace_id(),
        started=started,
        reading=[] if trained else None,
        reading_threshold=answer_threshold(engine.settings, engine.store.get_meta) if trained else 0.0,
    )


def retrieve_sources(engine: Engine, run: Run) -> Sources:
    """Retrieval: the passages the caller may read, sent before any text."""
    run.hits = sources(engine.store, run.question, engine.settings, k=engine.settings.top_k,
                       principals=run.principals)
    run.lap("retrieve_ms")
    return Sources(run.hits)


def probe_gate(engine: Engine, run: Run) -> None:
    """The retrieval probe: a weak or empty retrieval refuses (``on``) or is noted
    as a refusal that would have been (``shadow``)."""
    report = run.report = probe_retrieved(
        engine.store, run.question, run.hits, threshold=run.threshold.value,
        principals=run.principals,
        embedder=meaning_embedder(engine.settings.retrieval, engine.settings.reader),
    )
    run.lap("probe_ms")
    if report.signal != "ok" and run.abstain == "on":
        run.refusal = ("probe", report.reason(run.question))
    elif report.signal != "ok" and run.abstain == "shadow":
        run.shadow.append(_would_refuse("probe", report.reason(run.question)))


def ground(engine: Engine, run: Run) -> Grounds:
    """The evidence the guard judges against and what the answer check reads."""
    assert run.report is not None
    hits, modes = run.hits, run.modes
    texts = [h.passage.text for h in hits] + [h.document.title for h in hits]
    reader = _judge(engine) if modes["judge"] != "off" and run.abstain != "off" else None
    run.answered = run.abstain != "on"
    return Grounds(
        evidence=evidence_from_hits(hits, VersionTexts(engine.store)),
        by_id={h.passage.passage_id: h for h in hits},
        texts=texts,
        asked=anchors(run.question, texts),
        reader=reader,
        # A judge that reads answers decides only once all sentences are in, so
        # with both gates on nothing streams before it has.
        hold=run.abstain == "on" and modes["judge"] == "on"
        and callable(getattr(reader, "answers", None)),
        steering=steering_text(run.report, hits),
    )


def generate_and_guard(
    engine: Engine, run: Run, grounds: Grounds
) -> abc.Generator[AnswerSentence, None, None]:
    """Each new draft through the guard; yields the sentences it verified."""
    drafts = run.generator.generate(run.question, run.hits, steering=grounds.steering)
    judge = _judge(engine) if run.modes["judge"] != "off" else None
    repairs = engine.settings.repair and getattr(run.generator, "answers", None) == "free"
    seen: set[str] = set()
    for draft in _noted(drafts, run):
        text = draft.text.strip()
        if not text or text in seen:
            continue
        seen.add(text)
        run.drafts.append(draft)
        outcome, note = judge_draft(
            draft, grounds.evidence, settings=engine.settings, modes=run.modes,
            judge=judge,
        )
        if note:
            run.shadow.append(note)
        outcomes: Sequence[AnswerSentence | Dropped] = (outcome,)
        if isinstance(outcome, Dropped) and repairs and not draft.quoted:
            outcomes = _repaired(engine, run, grounds, draft, outcome, judge)
        for shown in outcomes:
            if isinstance(shown, AnswerSentence):
                run.kept.append(shown)
                yield shown
            else:
                run.dropped.append(shown)


def _repaired(
    engine: Engine, run: Run, grounds: Grounds, draft: Draft, dropped: Dropped, judge: Judge | None
) -> Sequence[AnswerSentence] | Sequence[Dropped]:
    """The passage sentences stating a dropped generated sentence's claim, shown in its
    place when they are verified quotes, new to the answer and answer the question
    (ADR 0058); otherwise the sentence stays dropped."""
    repair = repair_draft(draft, dropped, grounds.evidence, settings=engine.settings,
                          modes=run.modes, judge=judge, reader=support_judge(judge))
    if repair is None:
        return (dropped,)
    new = [s for s in repair.sentences if all(k.text != s.text for k in run.kept)]
    if not new or not any(_reads_as_answer(run, grounds, s)[0] for s in repair.sentences):
        return (dropped,)  # a true quote that does not answer is no repair of an answer
    run.repaired.extend(Repaired(s.text, s.citations[0].passage_id, repair.original, repair.entailment)
                        for s in new)
    return new


def _noted(drafts: Iterator[Draft | Remark], run: Run) -> Iterator[Draft]:
    """Pass drafts through, noting remarks, markers out of range and a provider failure.

    A remark (a lead-in, an ignored id) goes to the trace and nowhere else: it is
    never a claim. A failure ends the drafts: what was verified before it stays,
    nothing after it is shown, and ``finish`` puts the reason in the answer.
    """
    try:
        for draft in drafts:
            if isinstance(draft, Remark):
                run.remarks.append(draft)
                continue
            if draft.ignored_markers:
                run.ignored_markers.append(
                    IgnoredMarkers(draft.text.strip(), tuple(draft.ignored_markers))
                )
            yield draft
    except ProviderError as exc:
        run.generator_failure = str(exc)


def withhold(run: Run, grounds: Grounds, sentence: AnswerSentence) -> list[AnswerSentence]:
    """What may be shown now that ``sentence`` passed the guard.

    With the abstain gate ``on``, sentences wait until one of them answers the
    question (or, with ``hold``, until the judge has read the whole answer).
    """
    if not run.answered:
        run.withheld.append(sentence)
        if grounds.hold or not _answers(run, grounds, sentence):
            return []
        run.answered = True
    ready, run.withheld = run.withheld or [sentence], []
    return ready


def _answers(run: Run, grounds: Grounds, sentence: AnswerSentence) -> bool:
    """Whether this verified sentence answers: the answerability model's reading with
    the trained reader (the score is kept for the answer check), the rules without."""
    answers, score = _reads_as_answer(run, grounds, sentence)
    if run.reading is not None and score is not None:
        run.reading.append(score)
    return answers


def _reads_as_answer(
    run: Run, grounds: Grounds, sentence: AnswerSentence
) -> tuple[bool, float | None]:
    """Whether ``sentence`` alone answers, and the answerability model's score when
    the trained reader decides (None under the lexical answer check)."""
    if run.reading is not None:
        score = answer_scores(run.question, [sentence], grounds.by_id)[0]
        answers = score >= run.reading_threshold and not unnamed(run.question, sentence, grounds.by_id)
        return answers, score
    _, context, section, _ = _answering(sentence, grounds.by_id)
    return sentence_answers(
        run.question, sentence.text, context, section=section, passages=grounds.texts,
        anchor_terms=grounds.asked,
    ) is None, None


def answer_check(run: Run, grounds: Grounds) -> str | None:
    """Why the verified sentences, taken together, do not answer the question."""
    if run.reading is not None:
        if len(run.reading) < len(run.kept):  # released before the gate read them all
            run.reading = answer_scores(run.question, run.kept, grounds.by_id)
        misses = [unnamed(run.question, k, grounds.by_id) for k in run.kept]
        return unanswered(run.reading, run.reading_threshold, misses)
    answering = [_answering(k, grounds.by_id) for k in run.kept]
    return check_answer(run.question, answering, passages=grounds.texts)


def judge_gate(run: Run, grounds: Grounds) -> tuple[str | None, str]:
    """The model judge reads the whole answer: (why it refuses, the gate's mode).

    The judge refuses only when both the abstain and the judge gates are ``on``;
    otherwise what it finds is a shadow decision.
    """
    if grounds.reader is None:
        return None, run.abstain
    judged = judge_answers(
        grounds.reader, run.question, [_answering(k, grounds.by_id) for k in run.kept]
    )
    if judged is not None:
        run.answer_judged = AnswerJudged(judged.checker, judged.label, judged.error)
    gate = "on" if run.abstain == run.modes["judge"] == "on" else "shadow"
    thresholds = getattr(grounds.reader, "thresholds", None)
    return reader_refusal(judged, threshold=getattr(thresholds, "answers", None)), gate


def settle(run: Run, why: str | None, gate: str) -> list[AnswerSentence]:
    """Apply the answer-level decision; returns what waited and may now be shown."""
    if why and gate == "on":
        run.refusal, run.withheld, run.kept = ("guard", why), run.kept, []
        return []
    if why:
        run.shadow.append(_would_refuse("guard", why))
    ready, run.withheld = run.withheld, []
    return ready


def release(run: Run, ready: Sequence[AnswerSentence]) -> Iterator[Sentence]:
    """The sentences that may be shown, as events; the first one is timed."""
    for sentence in ready:
        run.lap("first_sentence_ms")
        yield Sentence(sentence)


def finish(run: Run) -> Answer:
    """The Answer of the run, with its trace; a refusal when a gate refused."""
    assert run.report is not None
    run.timings["total_ms"] = round((time.perf_counter() - run.started) * 1000, 2)
    refusal = _refusal(run)
    model = getattr(run.generator, "model", None)
    trace = Trace(
        retrieved=tuple(h.passage.passage_id for h in run.hits),
        shadow=tuple(run.shadow),
        probe=ProbeTrace(
            run.threshold.source, tuple(run.report.missing), tuple(run.report.absent),
            run.report.meaning,
        ),
        withheld=tuple(w.text for w in run.withheld),
        answer_judge=run.answer_judged,
        ignored_markers=tuple(run.ignored_markers),
        generator_failure=run.generator_failure,
        generator_model=model if isinstance(model, str) else None,
        answerability=tuple(round(score, 4) for score in run.reading or ()),
        quotes=quotes_trace(run.drafts, run.remarks),
        repaired=tuple(run.repaired),
    )
    return Answer(
        question=run.question,
        sentences=tuple(run.kept) if refusal is None else (),
        dropped=tuple(run.dropped),
        refused=refusal is not None,
        refusal_reason=refusal[1] if refusal else None,
        refusal_layer=refusal[0] if refusal else None,
        trace_id=run.trace_id,
        probe=run.report.probe,
        modes=dict(run.modes),
        generator=run.generator.name,
        timings_ms=run.timings,
        trace=trace.to_json(),
    )


def record(engine: Engine, run: Run, answer: Answer) -> tuple[Recheck, ...]:
    """Audit, shadow and metrics rows for the answer; its sentences' re-checks."""
    return tuple(
        record_answer(answer, engine.store, settings=engine.settings, shadow=run.shadow,
                      hits=run.hits)
    )


def _refusal(run: Run) -> tuple[str, str] | None:
    """(layer, reason) of the refusal, if the answer is one.

    A gate's refusal wins; a generator that failed before any sentence was verified
    comes next; otherwise an answer without sentences says which stage ran dry.
    """
    if run.generator_failure is not None and (run.refusal is not None or not run.kept):
        failure = run.generator_failure
        return "generator", f"the generator failed before any sentence was verified: {failure}"
    if run.refusal is not None:
        return run.refusal
    if run.kept:
        return None
    missing = not_stated(run.question)
    if not run.hits:
        return "retrieval", f"{missing}: nothing in the collection matches the question"
    if not run.drafts:
        return "generator", _no_drafts(missing, run)
    reason = (f"{missing}: none of the {len(run.drafts)} proposed sentences is stated by"
              " the passages found")
    withheld = sum(1 for d in run.dropped if d.reason)
    if withheld:
        reason = (f"{missing}: none of the {len(run.drafts)} proposed sentences is stated by"
                  f" original text in the passages found ({withheld} rest only on transcribed"
                  " or generated text, which quote_original_only withholds)")
    return "guard", reason


def _no_drafts(missing: str, run: Run) -> str:
    """Why a generator proposed nothing: the model said the passages do not answer
    (its own words stay in the trace: they are the model's, not evidence), it chose
    no sentence, or the extractive reading found none."""
    found = f"the {len(run.hits)} passages found" if len(run.hits) > 1 else "the passage found"
    if any(r.kind == "declined" for r in run.remarks):
        they = "they do" if len(run.hits) > 1 else "it does"
        return f"{missing}: the model read {found} and said {they} not answer it"
    if run.remarks:
        return f"{missing}: the model chose no sentence of {found}"
    return f"{missing}: the passages found hold no sentence that answers it"


def _judge(engine: Engine) -> Judge | None:
    """The engine's judge, under the store's calibration for its model when it has one."""
    return bound_judge(engine.judge(), engine.store.get_meta)


def _would_refuse(layer: str, reason: str) -> dict[str, str]:
    return {"gate": "abstain", "layer": layer, "reason": reason, "would": "refuse"}


def _answering(
    sentence: AnswerSentence, by_id: Mapping[str, Hit]
) -> tuple[str, str, str, tuple[str, ...]]:
    """The sentence, what it may lean on (its document's title and the sentence before
    it), the passage it was cut from and that passage's heading path, as the answer
    check takes them."""
    citation = sentence.citations[0]
    hit = by_id.get(citation.passage_id)
    if hit is None:
        return sentence.text, citation.title, "", citation.heading
    before = hit.passage.text[: max(0, citation.start - hit.passage.start)]
    spans = sentence_spans(before)
    previous = before[spans[-1].start : spans[-1].end] if spans else ""
    return sentence.text, f"{hit.document.title}\n{previous}", hit.passage.text, hit.passage.heading

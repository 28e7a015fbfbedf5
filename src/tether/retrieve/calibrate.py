"""Calibrating the probe threshold, and deciding which threshold is in force.

A probe score means something only for the collection and the scorer it was
measured on, so the threshold is *calibrated*: labelled questions (answerable or
not) are run through retrieval and the probe on the current store, and the
threshold that best separates the two score distributions is stored in the
store's metadata under the store's scorer (``probe.threshold.<scorer>``).

Which threshold applies (``resolve_threshold``):

1. ``probe_threshold = "SCORER=VALUE"`` in the configuration, pinned by hand. Its
   scorer must be the store's: a threshold calibrated for one scorer is refused
   for another with a ``ConfigError`` (a BM25 coverage cut-off says nothing about
   another ranking function's scores).
2. The store's own calibration for its scorer (made by ``tether calibrate``).
3. Otherwise ``probe.DEFAULT_THRESHOLD``, with a note saying it is uncalibrated.
   ``note_once`` hands that note out once per store (it records that it did, in the
   store's metadata), so a command line does not repeat it on every call.

    >>> choose_threshold([0.9, 0.8, 0.7], [0.2, 0.3], max_false_refusal=0.1)
    0.5
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from ..config import Settings
from ..errors import ConfigError, InputError, MissingExtra
from ..store import Store
from .probe import DEFAULT_THRESHOLD, MEANING, SCORE_RECIPE, meaning_embedder, probe_retrieved
from .focused import sources

__all__ = [
    "META_PREFIX",
    "NOTED_PREFIX",
    "Calibration",
    "Threshold",
    "calibrate",
    "choose_threshold",
    "describe",
    "histogram",
    "load_calibration",
    "note_once",
    "plot",
    "resolve_threshold",
    "save_calibration",
]

META_PREFIX = "probe.threshold."
NOTED_PREFIX = "probe.noted."  # + scorer: the note last shown for it


@dataclass(frozen=True, slots=True)
class Threshold:
    """The probe threshold in force, where it came from, and a note for the user."""

    value: float
    scorer: str
    source: Literal["default", "calibrated", "config"]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Calibration:
    """The outcome of a calibration run; what is stored for the scorer."""

    scorer: str
    recipe: str
    threshold: float
    answerable: tuple[float, ...]
    unanswerable: tuple[float, ...]
    margin_below: float | None  # threshold − the highest unanswerable score under it
    margin_above: float | None  # the lowest answerable score at or over it − threshold
    precision: float  # of the labelled questions the probe would refuse, share unanswerable
    recall: float  # share of unanswerable questions the probe would refuse
    false_refusal: float  # share of answerable questions the probe would refuse
    calibrated_at: str = ""
    # (answerable, unanswerable) questions the meaning reading refuses though their
    # coverage passes the threshold; None where the settings read no meaning (ADR 0067)
    meaning_refused: tuple[int, int] | None = None

    def to_meta(self) -> str:
        return json.dumps(asdict(self))


def _pinned(text: str) -> tuple[str, float]:
    scorer, sep, value = text.rpartition("=")
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not sep or not scorer.strip() or not 0.0 <= number <= 1.0:
        raise ConfigError(
            f"probe_threshold must be SCORER=VALUE with VALUE in [0, 1], got {text!r}",
            hint='e.g. probe_threshold = "sqlite-fts5-bm25=0.4"',
        )
    return scorer.strip(), number


def _refuse(value: float, calibrated_for: str, store_scorer: str, where: str) -> ConfigError:
    return ConfigError(
        f"the probe threshold {value:g} ({where}) was calibrated for scorer "
        f"{calibrated_for!r}, but this store scores with {store_scorer!r}; "
        "a threshold does not transfer between scorers",
        hint="run `tether calibrate LABELED.jsonl` on this store",
    )


def load_calibration(store: Store) -> Calibration | None:
    """The store's calibration for its own scorer, if one was saved."""
    raw = store.get_meta(META_PREFIX + store.scorer)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        data["answerable"] = tuple(data["answerable"])
        data["unanswerable"] = tuple(data["unanswerable"])
        if data.get("meaning_refused") is not None:
            data["meaning_refused"] = tuple(data["meaning_refused"])
        cal = Calibration(**data)
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(
            f"the stored probe calibration for {store.scorer!r} is unreadable: {exc}",
            hint="run `tether calibrate LABELED.jsonl` again",
        ) from exc
    if cal.scorer != store.scorer:
        raise _refuse(cal.threshold, cal.scorer, store.scorer, "stored in the store")
    return cal


def resolve_threshold(store: Store, settings: Settings) -> Threshold:
    """The threshold in force for ``store`` (see the module docstring for the order)."""
    if settings.probe_threshold.strip():
        scorer, value = _pinned(settings.probe_threshold)
        if scorer != store.scorer:
            raise _refuse(value, scorer, store.scorer, "probe_threshold in the configuration")
        return Threshold(value, scorer, "config")
    cal = load_calibration(store)
    if cal is not None and cal.recipe == SCORE_RECIPE:
        return Threshold(cal.threshold, cal.scorer, "calibrated")
    why = "was calibrated with an older probe score" if cal is not None else "is not calibrated"
    return Threshold(
        DEFAULT_THRESHOLD,
        store.scorer,
        "default",
        f"the probe threshold {why} for scorer {store.scorer!r}; using the default "
        f"{DEFAULT_THRESHOLD:g} (run `tether calibrate LABELED.jsonl` to calibrate it)",
    )


def note_once(store: Store, threshold: Threshold) -> str | None:
    """The threshold's note if this store has not shown it yet, recording that it has.

    A different note (an older calibration rather than none) is news and shown again.
    A store that cannot record it (read-only) shows the note every time.
    """
    if threshold.note is None:
        return None
    key = NOTED_PREFIX + threshold.scorer
    try:
        if store.get_meta(key) == threshold.note:
            return None
        store.set_meta(key, threshold.note)
    except Exception:  # noqa: BLE001 - any backend's write failure: say it, record nothing
        pass
    return threshold.note


def save_calibration(store: Store, calibration: Calibration) -> None:
    """Store ``calibration`` under its scorer; refused for a store that scores otherwise."""
    if calibration.scorer != store.scorer:
        raise _refuse(calibration.threshold, calibration.scorer, store.scorer, "this calibration")
    store.set_meta(META_PREFIX + store.scorer, calibration.to_meta())


def choose_threshold(
    answerable: Sequence[float], unanswerable: Sequence[float], *, max_false_refusal: float
) -> float:
    """The cut-off (refuse below it) that best separates the two distributions.

    Candidates are 0 (refuse nothing) and the midpoints between neighbouring
    scores. The best maximises recall on unanswerable questions minus the share of
    answerable questions refused (Youden's J), never refusing more than
    ``max_false_refusal`` of the answerable ones; ties go to the widest margin.
    """
    if not answerable or not unanswerable:
        raise InputError("calibration needs answerable and unanswerable questions")
    scores = sorted(set(answerable) | set(unanswerable))
    candidates = [0.0] + [round((a + b) / 2, 4) for a, b in zip(scores, scores[1:])]
    best: tuple[float, float, float] | None = None
    for t in candidates:
        refused_ok = sum(1 for s in answerable if s < t) / len(answerable)
        if refused_ok > max_false_refusal:
            continue
        recall = sum(1 for s in unanswerable if s < t) / len(unanswerable)
        margin = min((abs(s - t) for s in scores), default=0.0)
        key = (round(recall - refused_ok, 9), margin, t)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None  # t = 0 refuses nothing and always qualifies
    return best[2]


def _summarise(
    scorer: str, answerable: Sequence[float], unanswerable: Sequence[float], threshold: float
) -> Calibration:
    below_u = [s for s in unanswerable if s < threshold]
    above_a = [s for s in answerable if s >= threshold]
    refused_a = sum(1 for s in answerable if s < threshold)
    refused = len(below_u) + refused_a
    return Calibration(
        scorer=scorer,
        recipe=SCORE_RECIPE,
        threshold=threshold,
        answerable=tuple(sorted(answerable)),
        unanswerable=tuple(sorted(unanswerable)),
        margin_below=round(threshold - max(below_u), 4) if below_u else None,
        margin_above=round(min(above_a) - threshold, 4) if above_a else None,
        precision=round(len(below_u) / refused, 4) if refused else 0.0,
        recall=round(len(below_u) / len(unanswerable), 4),
        false_refusal=round(refused_a / len(answerable), 4),
        calibrated_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )


def calibrate(
    store: Store,
    items: Sequence[tuple[str, bool]],
    *,
    settings: Settings,
    principals: Sequence[str] | None = None,
    max_false_refusal: float = 0.05,
) -> Calibration:
    """Probe scores of labelled ``(question, answerable)`` pairs on ``store``, and
    the threshold they imply. Nothing is saved; see ``save_calibration``."""
    answerable: list[float] = []
    unanswerable: list[float] = []
    meanings: list[tuple[float, float, bool]] = []  # (coverage, meaning, answerable)
    embedder = meaning_embedder(settings.retrieval, settings.reader)
    for question, is_answerable in items:
        # The passages the pipeline's probe reads (``sources``), so the threshold is
        # chosen on the scores the probe computes.
        hits = sources(store, question, settings, k=settings.top_k, principals=principals)
        report = probe_retrieved(store, question, hits, threshold=0.0, principals=principals,
                                 embedder=embedder)
        (answerable if is_answerable else unanswerable).append(report.probe.score)
        if report.meaning is not None:
            meanings.append((report.probe.score, report.meaning, is_answerable))
    threshold = choose_threshold(answerable, unanswerable, max_false_refusal=max_false_refusal)
    cal = _summarise(store.scorer, answerable, unanswerable, threshold)
    if embedder is None:
        return cal
    refused = [ok for coverage, meaning, ok in meanings
               if coverage >= threshold and meaning < MEANING.at]
    return replace(cal, meaning_refused=(refused.count(True), refused.count(False)))


def histogram(cal: Calibration, *, bins: int = 10, width: int = 30) -> str:
    """Both score distributions side by side as a terminal histogram."""
    rows = [f"{'score':>11}  {'answerable':<{width}}  unanswerable"]
    counts_a = [0] * bins
    counts_u = [0] * bins
    for scores, counts in ((cal.answerable, counts_a), (cal.unanswerable, counts_u)):
        for s in scores:
            counts[min(bins - 1, max(0, int(s * bins)))] += 1
    peak = max(counts_a + counts_u + [1])
    for i in range(bins - 1, -1, -1):
        lo, hi = i / bins, (i + 1) / bins
        mark = " <- threshold" if lo <= cal.threshold < hi else ""
        bar_a = "#" * round(counts_a[i] * width / peak)
        bar_u = "#" * round(counts_u[i] * width / peak)
        rows.append(
            f"{lo:.1f}-{hi:.1f} {counts_a[i]:>3}  {bar_a:<{width}} {counts_u[i]:>3} {bar_u}{mark}"
        )
    return "\n".join(rows)


def plot(cal: Calibration, path: str | Path) -> None:
    """Write both score distributions and the threshold as a PNG (``tether[plot]``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: write the file only
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingExtra("calibrate --plot", "plot") from exc
    fig, ax = plt.subplots(figsize=(7, 4))
    edges = [i / 20 for i in range(21)]
    ax.hist(list(cal.answerable), bins=edges, alpha=0.6, label=f"answerable ({len(cal.answerable)})")
    ax.hist(list(cal.unanswerable), bins=edges, alpha=0.6,
            label=f"unanswerable ({len(cal.unanswerable)})")
    ax.axvline(cal.threshold, color="black", linestyle="--", label=f"threshold {cal.threshold:g}")
    ax.set_xlabel(f"probe score ({cal.recipe}, scorer {cal.scorer})")
    ax.set_ylabel("questions")
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path, format="png")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        plt.close(fig)


def describe(cal: Calibration) -> list[str]:
    """The calibration in a few lines of text (thresholds, margins, implied rates)."""
    def fmt(value: float | None) -> str:
        return "none on that side" if value is None else f"{value:.3f}"

    return [
        f"scorer: {cal.scorer} (probe score {cal.recipe})",
        f"questions: {len(cal.answerable)} answerable, {len(cal.unanswerable)} unanswerable",
        f"threshold: {cal.threshold:g} (weak below it)",
        f"margin below (to the highest unanswerable score under it): {fmt(cal.margin_below)}",
        f"margin above (to the lowest answerable score over it): {fmt(cal.margin_above)}",
        f"implied abstain precision {cal.precision:.3f}, recall {cal.recall:.3f}; "
        f"answerable questions refused {cal.false_refusal:.3f}",
        *([] if cal.meaning_refused is None else [
            f"the meaning reading (fixed at {MEANING.at:g}) also refuses "
            f"{cal.meaning_refused[0]} answerable and {cal.meaning_refused[1]} unanswerable "
            "of these questions over the threshold"]),
    ]

"""Scores of the support test on labelled (premise, hypothesis, label) pairs.

Nothing here is ever NaN: a metric whose class is empty is ``None`` and the count it
would divide by is reported beside it, so a reader sees "no contradiction pairs", not
a number that poisons an average.

    >>> from tether.config import Settings
    >>> r = evaluate_pairs([("Rollo led the Normans.", "Rollo led the Normans.", "entailment")],
    ...                    settings=Settings())
    >>> r["balanced_accuracy"], r["over_claiming"], r["counts"]["non_entailed"]
    (None, None, 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..config import Settings
from ..errors import InputError
from ..records import OUTCOMES
from ..verify.core import check

__all__ = ["GOLD_LABELS", "evaluate_pairs", "normalise_label"]

GOLD_LABELS = ("entailment", "neutral", "contradiction")
# Labels of the common NLI and fact-checking sets. "partially supported" is not
# entailment: a sentence the passage only half states must not be shown.
_ALIASES = {
    "entailment": "entailment", "entails": "entailment", "entailed": "entailment",
    "supported": "entailment", "supports": "entailment", "support": "entailment",
    "true": "entailment", "e": "entailment",
    "neutral": "neutral", "not_enough_info": "neutral", "nei": "neutral",
    "not_supported": "neutral", "partially_supported": "neutral", "unknown": "neutral",
    "n": "neutral",
    "contradiction": "contradiction", "contradicts": "contradiction",
    "contradicted": "contradiction", "refutes": "contradiction", "refuted": "contradiction",
    "false": "contradiction", "c": "contradiction",
}  # fmt: skip


def normalise_label(label: str) -> str:
    """Map a dataset's label onto entailment / neutral / contradiction."""
    key = str(label).strip().lower().replace("-", "_").replace(" ", "_")
    try:
        return _ALIASES[key]
    except KeyError:
        raise InputError(
            f"unknown gold label {label!r}", hint="use entailment, neutral or contradiction"
        ) from None


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def evaluate_pairs(
    pairs: Iterable[tuple[str, str, str]],
    *,
    settings: Settings,
    modes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run ``check(hypothesis, premise)`` on every pair and score it.

    Returns ``n``; ``counts`` per gold label (and ``non_entailed``); ``confusion``
    (gold label → outcome → count); ``balanced_accuracy`` of supported vs not against
    entailment vs not; ``contradiction_recall`` (gold contradiction judged
    ``contradicted``); ``over_claiming`` (share of non-entailed pairs judged
    ``supported``); ``entailed_dropped`` (share of entailed pairs not supported);
    ``shadow_changed`` (pairs whose shadow outcome differs). Rates are ``None`` when
    their class is empty.
    """
    confusion = {g: {o: 0 for o in OUTCOMES} for g in GOLD_LABELS}
    shadow_changed = 0
    for premise, hypothesis, label in pairs:
        gold = normalise_label(label)
        result = check(hypothesis, premise, settings=settings, modes=modes)
        confusion[gold][result.outcome] += 1
        shadow_changed += result.shadow_outcome is not None
    counts = {g: sum(confusion[g].values()) for g in GOLD_LABELS}
    n_ent = counts["entailment"]
    n_not = counts["neutral"] + counts["contradiction"]
    supported_ent = confusion["entailment"]["supported"]
    supported_not = confusion["neutral"]["supported"] + confusion["contradiction"]["supported"]
    supported_all = supported_ent + supported_not
    tpr = _ratio(supported_ent, n_ent)
    tnr = _ratio(n_not - supported_not, n_not)
    return {
        "n": n_ent + n_not,
        "counts": {**counts, "non_entailed": n_not},
        "confusion": confusion,
        "balanced_accuracy": (tpr + tnr) / 2 if tpr is not None and tnr is not None else None,
        # Precision first: the share of ``supported`` verdicts that are entailments.
        "supported_precision": _ratio(supported_ent, supported_all),
        "supported_count": supported_all,
        "entailed_recall": tpr,
        "supported_rate_entailed": tpr,
        "rejected_rate_non_entailed": tnr,
        "contradiction_recall": _ratio(
            confusion["contradiction"]["contradicted"], counts["contradiction"]
        ),
        "over_claiming": _ratio(supported_not, n_not),
        "entailed_dropped": _ratio(n_ent - supported_ent, n_ent),
        "shadow_changed": shadow_changed,
    }

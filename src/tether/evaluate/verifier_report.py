"""A readable confusion matrix for ``evaluate_pairs`` results (``tether eval-verifier``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records import OUTCOMES
from .verifier import GOLD_LABELS

__all__ = ["render_text"]


def _pct(value: float | None, count: int, what: str) -> str:
    if value is None:
        return f"n/a (no {what})"
    return f"{100 * value:6.2f}%  (of {count} {what})"


def render_text(result: Mapping[str, Any], *, title: str = "verifier") -> str:
    """Confusion matrix (gold label × outcome) and the headline rates, as plain text.

    Empty classes print ``n/a`` with their count, never NaN.
    """
    counts = result["counts"]
    confusion = result["confusion"]
    width = max(len(o) for o in OUTCOMES) + 1
    lines = [f"{title}: {result['n']} pairs", ""]
    lines.append(" " * 15 + "".join(o.rjust(width) for o in OUTCOMES) + "total".rjust(8))
    for gold in GOLD_LABELS:
        row = confusion[gold]
        lines.append(
            gold.ljust(15) + "".join(str(row[o]).rjust(width) for o in OUTCOMES)
            + str(counts[gold]).rjust(8)
        )  # fmt: skip
    lines.append("")
    lines.append(
        "supported precision   "
        + _pct(result.get("supported_precision"), result.get("supported_count", 0),
               "supported verdicts")
    )
    lines.append(
        "entailed recall       "
        + _pct(result.get("entailed_recall"), counts["entailment"], "entailed pairs")
    )
    ba = result["balanced_accuracy"]
    lines.append(
        "balanced accuracy     "
        + (f"{ba:.4f}" if ba is not None else "n/a (needs entailed and non-entailed pairs)")
    )
    lines.append(
        "over-claiming         "
        + _pct(result["over_claiming"], counts["non_entailed"], "non-entailed pairs")
    )
    lines.append(
        "entailed dropped      "
        + _pct(result["entailed_dropped"], counts["entailment"], "entailed pairs")
    )
    lines.append(
        "contradiction recall  "
        + _pct(result["contradiction_recall"], counts["contradiction"], "contradiction pairs")
    )
    if result.get("shadow_changed"):
        lines.append(f"shadow would change   {result['shadow_changed']} outcomes")
    return "\n".join(lines) + "\n"

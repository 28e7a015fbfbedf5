"""Small inline SVG charts for the HTML report: no plotting library, no network.

Each function returns one ``<svg>`` element that scales to its container (``viewBox``)
and carries ``<title>`` tooltips on its marks. Text is escaped here; callers pass
plain strings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

__all__ = ["histogram", "nice_ticks", "stacked_bars", "strip_plot"]

FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\""
AXIS = "#5f6b7a"
GRID = "#e3e7ec"


def nice_ticks(low: float, high: float, count: int = 5, *, integer: bool = False) -> list[float]:
    """Round tick values covering ``[low, high]`` (1, 2, 2.5 or 5 times a power of 10;
    whole numbers only with ``integer``, for counts)."""
    if not math.isfinite(low) or not math.isfinite(high):
        return [0.0, 1.0]
    if high <= low:
        high = low + (abs(low) or 1.0)
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * power for m in steps if m * power >= raw)
    if integer:
        step = max(1.0, round(step))
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _fmt(value: float) -> str:
    if abs(value) >= 100 or value == int(value):
        return f"{value:.0f}"
    return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) < 10 else f"{value:.1f}"


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" aria-label="{escape(label)}" '
        f'xmlns="http://www.w3.org/2000/svg" {FONT} font-size="12">'
        f"<title>{escape(label)}</title>{''.join(body)}</svg>"
    )


def _x_axis(ticks: Sequence[float], x: Callable[[float], float], top: float, bottom: float,
            label: str, left: float, right: float) -> list[str]:
    out = []
    for t in ticks:
        px = x(t)
        out.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{top}" y2="{bottom}" stroke="{GRID}"/>')
        out.append(f'<text x="{px:.1f}" y="{bottom + 16}" text-anchor="middle" fill="{AXIS}">'
                   f"{_fmt(t)}</text>")
    out.append(f'<line x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="{AXIS}"/>')
    out.append(f'<text x="{(left + right) / 2:.1f}" y="{bottom + 34}" text-anchor="middle" '
               f'fill="{AXIS}">{escape(label)}</text>')
    return out


def strip_plot(
    groups: Sequence[tuple[str, str, Sequence[tuple[float, str]]]],
    *,
    xlabel: str,
    threshold: float | None = None,
    threshold_label: str = "threshold",
) -> str:
    """One row of dots per group (``(label, colour, [(value, tooltip)])``), a median tick
    per row, and an optional dashed vertical threshold line."""
    width, left, right, row_h = 720, 150, 700, 56
    top = 28
    bottom = top + row_h * max(len(groups), 1)
    values = [v for _, _, items in groups for v, _ in items]
    if threshold is not None:
        values.append(threshold)
    ticks = nice_ticks(min(values, default=0.0), max(values, default=1.0))
    lo, hi = ticks[0], ticks[-1]

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo or 1) * (right - left)

    body = _x_axis(ticks, x, top - 8, bottom, xlabel, left, right)
    for row, (label, colour, items) in enumerate(groups):
        mid = top + row_h * row + row_h / 2
        body.append(f'<text x="{left - 12}" y="{mid - 2:.1f}" text-anchor="end" '
                    f'font-weight="600" fill="#1f2933">{escape(label)}</text>')
        body.append(f'<text x="{left - 12}" y="{mid + 13:.1f}" text-anchor="end" '
                    f'fill="{AXIS}">n = {len(items)}</text>')
        for i, (value, tip) in enumerate(items):
            # Deterministic jitter: the golden ratio spreads dots evenly in the row.
            dy = ((i * 0.618034) % 1 - 0.5) * (row_h - 18)
            body.append(f'<circle cx="{x(value):.1f}" cy="{mid + dy:.1f}" r="4.5" fill="{colour}" '
                        f'fill-opacity="0.55" stroke="{colour}"><title>{escape(tip)}</title></circle>')
        if items:
            ordered = sorted(v for v, _ in items)
            median = ordered[len(ordered) // 2] if len(ordered) % 2 else (
                ordered[len(ordered) // 2 - 1] + ordered[len(ordered) // 2]) / 2
            body.append(f'<line x1="{x(median):.1f}" x2="{x(median):.1f}" y1="{mid - row_h / 2 + 4:.1f}" '
                        f'y2="{mid + row_h / 2 - 4:.1f}" stroke="#1f2933" stroke-width="2">'
                        f"<title>median {median:.3g}</title></line>")
    if threshold is not None:
        tx = x(threshold)
        body.append(f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{top - 14}" y2="{bottom}" '
                    f'stroke="#c62828" stroke-width="2" stroke-dasharray="6 4"/>')
        body.append(f'<text x="{tx + 4:.1f}" y="{top - 16}" fill="#c62828">'
                    f"{escape(threshold_label)} {threshold:.3g}</text>")
    return _svg(width, bottom + 44, body, xlabel)


def stacked_bars(
    rows: Sequence[tuple[str, Sequence[tuple[str, int, str]]]], *, label: str
) -> str:
    """Horizontal 100% bars, one per row of ``(segment, count, colour)``, with a legend."""
    width, left, right, bar_h, gap = 720, 150, 640, 26, 16
    top = 10
    body: list[str] = []
    legend: dict[str, str] = {}
    for row, (name, segments) in enumerate(rows):
        y = top + row * (bar_h + gap)
        total = sum(c for _, c, _ in segments)
        body.append(f'<text x="{left - 12}" y="{y + bar_h / 2 + 4:.1f}" text-anchor="end" '
                    f'font-weight="600" fill="#1f2933">{escape(name)}</text>')
        body.append(f'<text x="{right + 10}" y="{y + bar_h / 2 + 4:.1f}" fill="{AXIS}">'
                    f"n = {total}</text>")
        if not total:
            body.append(f'<rect x="{left}" y="{y}" width="{right - left}" height="{bar_h}" '
                        f'fill="none" stroke="{GRID}"/>')
            continue
        cursor = float(left)
        for seg, count, colour in segments:
            legend.setdefault(seg, colour)
            if not count:
                continue
            w = count / total * (right - left)
            body.append(f'<rect x="{cursor:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                        f'fill="{colour}"><title>{escape(seg)}: {count} of {total} '
                        f"({count / total:.0%})</title></rect>")
            if w > 28:
                body.append(f'<text x="{cursor + w / 2:.1f}" y="{y + bar_h / 2 + 4:.1f}" '
                            f'text-anchor="middle" fill="#fff" font-weight="600">{count}</text>')
            cursor += w
    y = top + len(rows) * (bar_h + gap) + 4
    x = float(left)
    for seg, colour in legend.items():
        body.append(f'<rect x="{x:.1f}" y="{y}" width="12" height="12" fill="{colour}"/>')
        body.append(f'<text x="{x + 17:.1f}" y="{y + 10}" fill="#1f2933">{escape(seg)}</text>')
        x += 30 + 7 * len(seg)
        if x > right - 60:
            x, y = float(left), y + 20
    return _svg(width, y + 24, body, label)


def histogram(
    values: Sequence[float], *, xlabel: str, bins: int = 20,
    markers: Sequence[tuple[str, float]] = (), colour: str = "#3b6ea8",
) -> str:
    """Counts of ``values`` in equal bins, with labelled vertical markers (p50, p95)."""
    width, left, right, top, bottom = 720, 60, 700, 30, 190
    ticks = nice_ticks(0.0 if not values else min(0.0, min(values)), max(values, default=1.0))
    lo, hi = ticks[0], ticks[-1]
    step = (hi - lo) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(int((v - lo) / step), bins - 1)] += 1
    peak = max(counts, default=0) or 1
    y_ticks = nice_ticks(0, peak, 5, integer=True)

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo or 1) * (right - left)

    def y(c: float) -> float:
        return bottom - c / y_ticks[-1] * (bottom - top)

    body = _x_axis(ticks, x, top, bottom, xlabel, left, right)
    for t in y_ticks:
        body.append(f'<text x="{left - 8}" y="{y(t) + 4:.1f}" text-anchor="end" fill="{AXIS}">'
                    f"{_fmt(t)}</text>")
    body.append(f'<text x="14" y="{(top + bottom) / 2:.1f}" fill="{AXIS}" text-anchor="middle" '
                f'transform="rotate(-90 14 {(top + bottom) / 2:.1f})">questions</text>')
    for i, count in enumerate(counts):
        if count:
            x0, x1 = x(lo + i * step), x(lo + (i + 1) * step)
            body.append(f'<rect x="{x0 + 1:.1f}" y="{y(count):.1f}" width="{max(x1 - x0 - 2, 1):.1f}" '
                        f'height="{bottom - y(count):.1f}" fill="{colour}"><title>'
                        f"{_fmt(lo + i * step)}–{_fmt(lo + (i + 1) * step)}: {count}</title></rect>")
    for n, (name, value) in enumerate(markers):
        mx = x(value)
        body.append(f'<line x1="{mx:.1f}" x2="{mx:.1f}" y1="{top - 6}" y2="{bottom}" stroke="#c62828" '
                    f'stroke-width="2" stroke-dasharray="5 3"/>')
        body.append(f'<text x="{mx + 4:.1f}" y="{top - 8 + 13 * n}" fill="#c62828">'
                    f"{escape(name)} {value:.1f}</text>")
    return _svg(width, bottom + 44, body, xlabel)

"""Which text a PDF page shows a reader, decided while pypdf extracts it.

A PDF's text layer holds text no reader sees: white on a white page, drawn in render
mode 3 (invisible) or 7 (clip only), set at 1-3 pt, or placed outside the page's
crop box. Extracted, such text would be cited and answered as fact, so the
``Visibility`` tracker follows the content stream's operators (pypdf's
``visitor_operand_before`` hands each one over before pypdf interprets it) and
blanks the text operand of every text-showing operator a reader could not see.
pypdf then extracts the page as it always does: a page without hidden text gives
exactly the text it gave before.

What is tracked, per graphics state (``q``/``Q``): fill and stroke colour (``g``,
``rg``, ``k``, ``sc``/``scn`` with 1, 3 or 4 components; a pattern or a colour space
we cannot read counts as visible), the render mode (``Tr``) and font size (``Tf``).
The background under a text origin is the colour of the last filled rectangle or path
drawn under it (``re``/``m``/``l``/``c`` then ``f``/``B``...), an image
(``Do`` of an image counts as "not a plain colour": text over it is kept), else white.
Not tracked (kept as visible): clipping paths, text covered by a later fill, text
inside a form XObject that a form's own matrix moves off the page. Each operator
costs a constant (at most ``_MAX_FILLS`` fills are compared), so the tracker adds a
bounded factor to the extraction pypdf does anyway. It also counts the tokens it is
handed (``tokens``: operators and operands, as pypdf's parser counts them) and calls
``check`` once per operator — ``deadline.check`` in the extractor, so a page's
operators stop being interpreted once a request's deadline has passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["REASONS", "Visibility"]

# Why a piece of text was dropped, as counted on the document.
REASONS = ("background-colour", "invisible-render-mode", "tiny-text", "outside-page")
# A colour this close (every channel, 0-1) to the background is not seen; anti-spam
# tricks use #fefefe as readily as #ffffff.
_SAME_COLOUR = 0.06
_WHITE = (1.0, 1.0, 1.0)
_MAX_FILLS = 32  # the most recent filled areas compared with a text origin
_SHOW = {b"Tj", b"TJ", b"'", b'"'}
_FILL = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"}
_PATH_END = {b"n", b"S", b"s"}
_STROKE_ONLY = {1, 5}
_FILL_AND_STROKE = {2, 6}
_INVISIBLE = {3, 7}

Colour = tuple[float, float, float] | None  # RGB 0-1; None: not a plain colour
Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass(frozen=True, slots=True)
class _State:
    fill: Colour = (0.0, 0.0, 0.0)
    stroke: Colour = (0.0, 0.0, 0.0)
    fill_components: int = 1  # of the fill colour space set by ``cs`` (0: unknown)
    stroke_components: int = 1
    render: int = 0
    size: float = 0.0


def _num(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) < 1e9 else None  # no NaN, no inf


def _colour(operands: Sequence[Any], components: int) -> Colour:
    """An RGB colour from gray, RGB or CMYK operands; ``None`` for anything else."""
    values = [_num(v) for v in operands]
    if not values or any(v is None for v in values) or len(values) != components:
        return None
    v = [min(1.0, max(0.0, x)) for x in values if x is not None]
    if components == 1:
        return (v[0], v[0], v[0])
    if components == 3:
        return (v[0], v[1], v[2])
    if components == 4:
        c, m, y, k = v
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    return None


_SPACES = {"/DeviceGray": 1, "/G": 1, "/CalGray": 1, "/DeviceRGB": 3, "/RGB": 3,
           "/CalRGB": 3, "/DeviceCMYK": 4, "/CMYK": 4}


def _apply(matrix: Sequence[float], x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    return a * x + c * y + e, b * x + d * y + f


@dataclass
class Visibility:
    """Follows one page's operators; ``dropped`` counts the text pieces blanked, by reason.

        >>> seen = Visibility(box=(0, 0, 612, 792), min_size=4.0)
        >>> seen(b"g", [1], [1, 0, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0])   # white fill
        >>> op = ["hidden"]; seen(b"Tf", ["/F1", 12], [1, 0, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0])
        >>> seen(b"Tj", op, [1, 0, 0, 1, 0, 0], [1, 0, 0, 1, 72, 700]); op
        ['']
    """

    box: Box
    min_size: float
    images: frozenset[str] = frozenset()  # XObject names that are images
    state: _State = field(default_factory=_State)
    stack: list[_State] = field(default_factory=list)
    fills: list[tuple[Box, Colour]] = field(default_factory=list)
    path: list[float] = field(default_factory=list)  # x0, y0, x1, y1 of the open path
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_text: list[str] = field(default_factory=list)
    check: Callable[[], None] | None = None  # asked once per operator (a deadline)
    tokens: int = 0  # operators and operands seen, list elements counted one by one

    def __call__(self, op: bytes, operands: list[Any], cm: Sequence[float],
                 tm: Sequence[float]) -> None:
        if self.check is not None:
            self.check()
        self.tokens += 1 + sum(len(o) + 1 if isinstance(o, list) else 1 for o in operands)
        if op in _SHOW:
            self._show(op, operands, cm, tm)
        elif op == b"q":
            if len(self.stack) < 256:  # deeper nesting keeps the innermost state
                self.stack.append(self.state)
        elif op == b"Q":
            if self.stack:
                self.state = self.stack.pop()
        else:
            self._state_op(op, operands, cm)

    def _state_op(self, op: bytes, operands: list[Any], cm: Sequence[float]) -> None:
        s = self.state
        if op in (b"g", b"rg", b"k"):
            self.state = replace(s, fill=_colour(operands, {b"g": 1, b"rg": 3, b"k": 4}[op]))
        elif op in (b"G", b"RG", b"K"):
            self.state = replace(s, stroke=_colour(operands, {b"G": 1, b"RG": 3, b"K": 4}[op]))
        elif op in (b"sc", b"scn"):
            self.state = replace(s, fill=_colour(operands, s.fill_components))
        elif op in (b"SC", b"SCN"):
            self.state = replace(s, stroke=_colour(operands, s.stroke_components))
        elif op in (b"cs", b"CS") and operands:
            n = _SPACES.get(str(operands[0]), 0)
            self.state = (replace(s, fill_components=n, fill=(0.0, 0.0, 0.0) if n else None)
                          if op == b"cs" else
                          replace(s, stroke_components=n, stroke=(0.0, 0.0, 0.0) if n else None))
        elif op == b"Tr" and operands:
            mode = _num(operands[0])
            self.state = replace(s, render=int(mode) if mode is not None else 0)
        elif op == b"Tf" and len(operands) >= 2:
            size = _num(operands[1])
            self.state = replace(s, size=abs(size) if size is not None else 0.0)
        else:
            self._path_op(op, operands, cm)

    def _path_op(self, op: bytes, operands: list[Any], cm: Sequence[float]) -> None:
        if op == b"re" and len(operands) == 4:
            x, y, w, h = (_num(v) for v in operands)
            if None not in (x, y, w, h):
                self._extend(cm, [x, y, x + w, y + h, x, y + h, x + w, y])  # type: ignore[operator]
        elif op in (b"m", b"l", b"c", b"v", b"y"):
            self._extend(cm, [_num(v) for v in operands])
        elif op in _FILL:
            if len(self.path) == 4:
                self._fill((self.path[0], self.path[1], self.path[2], self.path[3]),
                           self.state.fill)
            self.path = []
        elif op in _PATH_END:
            self.path = []
        elif op == b"Do" and operands and str(operands[0]) in self.images:
            corners = [_apply(cm, x, y) for x, y in ((0, 0), (1, 1), (0, 1), (1, 0))]
            xs, ys = [p[0] for p in corners], [p[1] for p in corners]
            self._fill((min(xs), min(ys), max(xs), max(ys)), None)

    def _extend(self, cm: Sequence[float], numbers: list[float | None]) -> None:
        for i in range(0, len(numbers) - 1, 2):
            x, y = numbers[i], numbers[i + 1]
            if x is None or y is None:
                continue
            px, py = _apply(cm, x, y)
            if self.path:
                p = self.path
                self.path = [min(p[0], px), min(p[1], py), max(p[2], px), max(p[3], py)]
            else:
                self.path = [px, py, px, py]

    def _fill(self, area: Box, colour: Colour) -> None:
        self.fills.append((area, colour))
        if len(self.fills) > _MAX_FILLS:
            del self.fills[0]

    def _background(self, x: float, y: float) -> Colour:
        for (x0, y0, x1, y1), colour in reversed(self.fills):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return colour
        return _WHITE

    def _show(self, op: bytes, operands: list[Any], cm: Sequence[float],
              tm: Sequence[float]) -> None:
        reason = self._hidden(cm, tm, _text_length(op, operands))
        if reason is None:
            return
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        if len(self.dropped_text) < 200:  # enough to flag instructions, bounded in memory
            self.dropped_text.append(_text_of(op, operands))
        _blank(op, operands)

    def _hidden(self, cm: Sequence[float], tm: Sequence[float], length: int) -> str | None:
        s = self.state
        if s.render in _INVISIBLE:
            return "invisible-render-mode"
        try:
            x, y = _apply(cm, float(tm[4]), float(tm[5]))
            # The height of the font's em square on the page: the size through Tm, then cm.
            vx, vy = s.size * float(tm[2]), s.size * float(tm[3])
            size = float((cm[0] * vx + cm[2] * vy) ** 2 + (cm[1] * vx + cm[3] * vy) ** 2) ** 0.5
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if self.min_size > 0 and size < self.min_size:
            return "tiny-text"
        x0, y0, x1, y1 = self.box
        width = 0.6 * size * length  # a rough advance: the origin is all we know exactly
        if x > x1 or y > y1 + size or y < y0 - size or x + width < x0:
            return "outside-page"
        background = self._background(x, y)
        if background is None:
            return None
        shown = ([s.stroke] if s.render in _STROKE_ONLY else
                 [s.fill, s.stroke] if s.render in _FILL_AND_STROKE else [s.fill])
        if all(c is not None and _same(c, background) for c in shown):
            return "background-colour"
        return None


def _same(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    return all(abs(x - y) <= _SAME_COLOUR for x, y in zip(a, b))


def _strings(op: bytes, operands: list[Any]) -> list[Any]:
    if op == b"TJ":
        items = operands[0] if operands and isinstance(operands[0], list) else []
        return [v for v in items if isinstance(v, (str, bytes)) and not str(v).startswith("/")]
    if op == b'"':
        return operands[2:3]
    return operands[:1]


def _text_length(op: bytes, operands: list[Any]) -> int:
    return sum(len(v) for v in _strings(op, operands))


def _text_of(op: bytes, operands: list[Any]) -> str:
    parts = _strings(op, operands)
    return "".join(v if isinstance(v, str) else v.decode("latin-1") for v in parts)


def _blank(op: bytes, operands: list[Any]) -> None:
    """Empty the text of a showing operator in place, so pypdf extracts nothing for it."""
    from pypdf.generic import ArrayObject, TextStringObject

    if op == b"TJ":
        if operands:
            operands[0] = ArrayObject()
    elif op == b'"':
        if len(operands) >= 3:
            operands[2] = TextStringObject("")
    elif operands:
        operands[0] = TextStringObject("")

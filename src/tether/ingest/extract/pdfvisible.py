"""Which text a PDF page shows a reader, decided while pypdf extracts it.

A PDF's text layer holds text no reader sees: white on a white page, drawn in render
mode 3 (invisible) or 7 (clip only), fully transparent (an ExtGState ``/ca 0`` set with
``gs``), set at 1-3 pt or squeezed to nothing (``Tz``), placed outside the page's crop
box (by its matrix or a text rise ``Ts``), or in an optional-content layer that is OFF.
Extracted, such text would be cited and answered as fact, so the ``Visibility`` tracker
follows the content stream's operators (pypdf's ``visitor_operand_before`` hands each
one over before pypdf interprets it, ``after`` is told when a form XObject is done) and
blanks the text operand of every text-showing operator a reader could not see. pypdf
then extracts the page as it always does: a page without hidden text gives exactly the
text it gave before. Each rule is a named entry of ``_RULES``; its name is the reason
counted on the document.

What is tracked, per graphics state (``q``/``Q``, and around each form XObject): fill
and stroke colour (``g``, ``rg``, ``k``, ``sc``/``scn`` with 1, 3 or 4 components; a
pattern or a colour space we cannot read counts as visible), fill and stroke alpha
(``gs``: ``/ca``, ``/CA``), the render mode (``Tr``), font size (``Tf``), horizontal
scaling (``Tz``) and rise (``Ts``). Marked content (``BDC``/``BMC``…``EMC``) and form
XObjects are followed for their ``/OC`` membership (``pdflayers``), with the resources
of the form they are in; a form's ``/Matrix`` and the matrix it is drawn with place
its text on the page. The background under a piece of text is the colour of the last
filled rectangle or path drawn under its origin and the point half an em above it
(``re``/``m``/``l``/``c`` then ``f``/``B``...; a fill smaller than the text is a mark,
not a ground; one under only one of the points, or an image, counts as "not a plain
colour": text on it is kept), else white. Not tracked (kept as visible): clipping paths (a form's ``/BBox`` too),
soft masks and blend modes, text covered by a later fill. Each operator costs a
constant (at most ``_MAX_FILLS`` fills are compared), so the tracker adds a bounded
factor to the extraction pypdf does anyway. It also counts the tokens it is handed
(``tokens``: operators and operands, as pypdf's parser counts them) and calls
``check`` once per operator — ``deadline.check`` in the extractor, so a page's
operators stop being interpreted once a request's deadline has passed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from .pdflayers import Layers, resolved

__all__ = ["REASONS", "Visibility"]

# A colour this close (every channel, 0-1) to the background is not seen; anti-spam
# tricks use #fefefe as readily as #ffffff.
_SAME_COLOUR = 0.06
# Paint this transparent is not seen: at most the same contrast, on any background.
_FAINT_ALPHA = _SAME_COLOUR
_WHITE = (1.0, 1.0, 1.0)
_MAX_FILLS = 32  # the most recent filled areas compared with a text origin
_SHOW = {b"Tj", b"TJ", b"'", b'"'}
_FILL = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"}
_PATH_END = {b"n", b"S", b"s"}
_STROKE_ONLY = {1, 5}
_FILL_AND_STROKE = {2, 6}
_INVISIBLE = {3, 7}
_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

Colour = tuple[float, float, float] | None  # RGB 0-1; None: not a plain colour
Box = tuple[float, float, float, float]  # x0, y0, x1, y1
Matrix = tuple[float, float, float, float, float, float]


@dataclass(frozen=True, slots=True)
class _State:
    fill: Colour = (0.0, 0.0, 0.0)
    stroke: Colour = (0.0, 0.0, 0.0)
    fill_components: int = 1  # of the fill colour space set by ``cs`` (0: unknown)
    stroke_components: int = 1
    fill_alpha: float = 1.0  # ExtGState /ca
    stroke_alpha: float = 1.0  # ExtGState /CA
    render: int = 0
    size: float = 0.0
    scale: float = 1.0  # horizontal scaling (Tz / 100)
    rise: float = 0.0  # text rise (Ts), in unscaled text space units


@dataclass(frozen=True, slots=True)
class _Frame:
    """What drawing a form XObject (``Do``) set aside, restored when the form is done."""

    resources: Any
    base: Matrix  # the form's space on the page: its /Matrix, then the caller's cm
    layer_off: bool  # the form, or one it is drawn in, is in an OFF layer
    state: _State
    stack: int
    marks: int
    marks_off: int


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


def _times(m: Sequence[float], n: Sequence[float]) -> Matrix:
    """``m`` then ``n`` (PDF's row-vector order: ``m x n``)."""
    a, b, c, d, e, f = (float(v) for v in m[:6])
    p, q, r, s, t, u = (float(v) for v in n[:6])
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s,
            e * p + f * r + t, e * q + f * s + u)


def _length(matrix: Sequence[float], x: float, y: float) -> float:
    """The length on the page of the vector (x, y) through ``matrix``'s linear part."""
    return math.hypot(matrix[0] * x + matrix[2] * y, matrix[1] * x + matrix[3] * y)


class _Geometry(NamedTuple):
    """Where a piece of text is on the page (points)."""

    x: float  # origin, with the text rise
    y: float
    size: float  # em height
    em: float  # em width (horizontal scaling included)
    mid_x: float  # half an em above the origin, in the text's own up direction
    mid_y: float


@dataclass(frozen=True, slots=True)
class _Placed:
    """One text-showing operator as a reader would meet it."""

    state: _State
    layer_off: bool
    at: _Geometry | None  # None: a matrix we cannot read
    length: int  # characters shown


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
    resources: Any = None  # the page's /Resources (pypdf): ExtGState, Properties, XObject
    layers: Layers = field(default_factory=Layers)  # which optional content is OFF
    state: _State = field(default_factory=_State)
    stack: list[_State] = field(default_factory=list)
    frames: list[_Frame] = field(default_factory=list)  # form XObjects being drawn
    marks: int = 0  # marked-content sequences open (BMC/BDC without their EMC)
    marks_off: list[int] = field(default_factory=list)  # depths of the open ones in OFF layers
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
        if self.frames:  # pypdf hands a form's operators the form's own cm
            cm = _times(cm, self.frames[-1].base)
        if op in _SHOW:
            self._show(op, operands, cm, tm)
        elif op == b"q":
            if len(self.stack) < 256:  # deeper nesting keeps the innermost state
                self.stack.append(self.state)
        elif op == b"Q":
            if self.stack and len(self.stack) > (self.frames[-1].stack if self.frames else 0):
                self.state = self.stack.pop()
        elif op in (b"BMC", b"BDC", b"EMC"):
            self._mark(op, operands)
        elif op == b"Do":
            self._draw(operands, cm)
        else:
            self._state_op(op, operands, cm)

    def after(self, op: bytes, operands: list[Any], cm: Sequence[float],
              tm: Sequence[float]) -> None:
        """pypdf's ``visitor_operand_after``: a ``Do`` is done, its form's frame ends."""
        if op == b"Do" and self.frames:
            frame = self.frames.pop()
            self.state = frame.state
            del self.stack[frame.stack:]
            self.marks = frame.marks
            del self.marks_off[frame.marks_off:]

    def _layer_off(self) -> bool:
        return bool(self.marks_off) or bool(self.frames and self.frames[-1].layer_off)

    def _mark(self, op: bytes, operands: list[Any]) -> None:
        """Marked content: ``/OC /name BDC`` (or an inline /OC dictionary) opens a layer."""
        floor = self.frames[-1].marks if self.frames else 0
        if op == b"EMC":
            if self.marks > floor:
                if self.marks_off and self.marks_off[-1] == self.marks:
                    self.marks_off.pop()
                self.marks -= 1
            return
        self.marks += 1
        if op == b"BDC" and len(operands) >= 2 and str(operands[0]) == "/OC":
            member = operands[1]
            if not isinstance(resolved(member), dict):  # a name in /Properties
                member = _resource(self._resources(), "/Properties", member)
            if member is not None and self.layers.hides(member):
                self.marks_off.append(self.marks)

    def _resources(self) -> Any:
        return self.frames[-1].resources if self.frames else self.resources

    def _draw(self, operands: list[Any], cm: Sequence[float]) -> None:
        """``Do``: an image is a background; a form's operators follow, in its own frame."""
        raw = _resource(self._resources(), "/XObject", operands[0]) if operands else None
        xobject = resolved(raw)
        is_dict = isinstance(xobject, dict)
        member = dict.get(xobject, "/OC") if is_dict else None
        layer_off = self._layer_off() or (member is not None and self.layers.hides(member))
        subtype = str(resolved(dict.get(xobject, "/Subtype"))) if is_dict else ""
        if subtype == "/Image" and not layer_off:
            corners = [_apply(cm, x, y) for x, y in ((0, 0), (1, 1), (0, 1), (1, 0))]
            xs, ys = [p[0] for p in corners], [p[1] for p in corners]
            self._fill((min(xs), min(ys), max(xs), max(ys)), None)
        own = resolved(dict.get(xobject, "/Resources")) if is_dict else None
        matrix = resolved(dict.get(xobject, "/Matrix", _IDENTITY)) if is_dict else _IDENTITY
        try:
            base = _times([float(resolved(v)) for v in matrix[:6]], cm)
        except (TypeError, ValueError, IndexError, OverflowError):  # unreadable: identity
            base = _times(_IDENTITY, cm)
        # Every Do opens a frame (``after`` closes it), a form or not, so the two pair up.
        self.frames.append(_Frame(
            resources=own if isinstance(own, dict) else self._resources(), base=base,
            layer_off=layer_off, state=self.state, stack=len(self.stack), marks=self.marks,
            marks_off=len(self.marks_off)))

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
        elif op in _TEXT_STATE and len(operands) > _TEXT_STATE[op][0]:
            at, setter = _TEXT_STATE[op]
            self.state = setter(s, _num(operands[at]))
        elif op == b"gs" and operands:
            self.state = _graphics_state(s, _resource(self._resources(), "/ExtGState", operands[0]))
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
            if len(self.path) == 4 and not self._layer_off():  # an OFF layer paints nothing
                self._fill((self.path[0], self.path[1], self.path[2], self.path[3]),
                           self.state.fill)
            self.path = []
        elif op in _PATH_END:
            self.path = []

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

    def background(self, at: _Geometry) -> Colour:
        """The colour under a piece of text: the last fill drawn under both its origin and
        the point half an em above it, else white. A fill smaller than the text's em (an
        arrowhead or a bullet touching a label) is a mark, not its ground; a larger one
        under only one of the points is a mixed ground (``None``: it may be seen)."""
        for (x0, y0, x1, y1), colour in reversed(self.fills):
            under_origin = x0 <= at.x <= x1 and y0 <= at.y <= y1
            under_middle = x0 <= at.mid_x <= x1 and y0 <= at.mid_y <= y1
            if not (under_origin or under_middle) or max(x1 - x0, y1 - y0) < at.size:
                continue
            return colour if under_origin and under_middle else None
        return _WHITE

    def _show(self, op: bytes, operands: list[Any], cm: Sequence[float],
              tm: Sequence[float]) -> None:
        placed = _Placed(self.state, self._layer_off(), self._place(cm, tm),
                         _text_length(op, operands))
        reason = next((name for name, hides in _RULES if hides(self, placed)), None)
        if reason is None:
            return
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        if len(self.dropped_text) < 200:  # enough to flag instructions, bounded in memory
            self.dropped_text.append(_text_of(op, operands))
        _blank(op, operands)

    def _place(self, cm: Sequence[float], tm: Sequence[float]) -> _Geometry | None:
        s = self.state
        try:
            a, b, c, d, e, f = (float(v) for v in tm[:6])
            x, y = _apply(cm, c * s.rise + e, d * s.rise + f)
            mid = s.rise + s.size / 2
            mid_x, mid_y = _apply(cm, c * mid + e, d * mid + f)
            size = _length(cm, s.size * c, s.size * d)
            em = _length(cm, s.size * s.scale * a, s.size * s.scale * b)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        return _Geometry(x, y, size, em, mid_x, mid_y)


def _resource(resources: Any, category: str, name: Any) -> Any:
    """The entry ``name`` of a resource ``category``, as stored (a reference stays one)."""
    entries = resolved(dict.get(resources, category)) if isinstance(resources, dict) else None
    return dict.get(entries, str(name)) if isinstance(entries, dict) else None


def _graphics_state(s: _State, entry: Any) -> _State:
    """``gs``: the fill and stroke alpha an ExtGState dictionary sets (others kept)."""
    values = resolved(entry)
    if not isinstance(values, dict):
        return s
    fill, stroke = (_num(resolved(dict.get(values, k))) for k in ("/ca", "/CA"))
    return replace(s, fill_alpha=s.fill_alpha if fill is None else min(1.0, max(0.0, fill)),
                   stroke_alpha=s.stroke_alpha if stroke is None else min(1.0, max(0.0, stroke)))


# Text-state operators: the operand each reads, and the field it sets (to its default
# when the operand is no number).
_TEXT_STATE: dict[bytes, tuple[int, Callable[[_State, float | None], _State]]] = {
    b"Tr": (0, lambda s, v: replace(s, render=int(v) if v is not None else 0)),
    b"Tf": (1, lambda s, v: replace(s, size=abs(v) if v is not None else 0.0)),
    b"Tz": (0, lambda s, v: replace(s, scale=abs(v) / 100 if v is not None else 1.0)),
    b"Ts": (0, lambda s, v: replace(s, rise=v if v is not None else 0.0)),
}


def _paints(s: _State) -> list[tuple[Colour, float]]:
    """The colours (with their alpha) a text render mode paints glyphs with."""
    if s.render in _STROKE_ONLY:
        return [(s.stroke, s.stroke_alpha)]
    if s.render in _FILL_AND_STROKE:
        return [(s.fill, s.fill_alpha), (s.stroke, s.stroke_alpha)]
    return [(s.fill, s.fill_alpha)]


def _transparent(seen: Visibility, p: _Placed) -> bool:
    return all(alpha <= _FAINT_ALPHA for _, alpha in _paints(p.state))


def _tiny(seen: Visibility, p: _Placed) -> bool:
    """Its em is under the readable minimum: in height, or squeezed flat (``Tz``)."""
    return p.at is not None and seen.min_size > 0 and min(p.at.size, p.at.em) < seen.min_size


def _outside(seen: Visibility, p: _Placed) -> bool:
    """Its origin is off the crop box, or its whole (estimated) advance is left of it."""
    if p.at is None:
        return False
    x, y, size = p.at.x, p.at.y, p.at.size
    width = 0.6 * p.at.em * p.length  # a rough advance: the origin is all we know exactly
    x0, y0, x1, y1 = seen.box
    return x > x1 or y > y1 + size or y < y0 - size or x + width < x0


def _on_its_background(seen: Visibility, p: _Placed) -> bool:
    """Every colour it paints, blended by its alpha, is the colour under its origin."""
    if p.at is None:
        return False
    under = seen.background(p.at)
    if under is None:
        return False  # over an image or a mixed ground: whatever its colour, it may be seen
    return all(c is not None and _same(_blend(c, alpha, under), under)
               for c, alpha in _paints(p.state))


def _blend(colour: tuple[float, float, float], alpha: float,
           under: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = (alpha * c + (1 - alpha) * u for c, u in zip(colour, under))
    return (r, g, b)


# Why a piece of text is not seen, in the order asked; the name is counted on the document.
_RULES: tuple[tuple[str, Callable[[Visibility, _Placed], bool]], ...] = (
    ("optional-content-off", lambda seen, p: p.layer_off),
    ("invisible-render-mode", lambda seen, p: p.state.render in _INVISIBLE),
    ("transparent", _transparent),
    ("tiny-text", _tiny),
    ("outside-page", _outside),
    ("background-colour", _on_its_background),
)
REASONS = tuple(name for name, _ in _RULES)


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

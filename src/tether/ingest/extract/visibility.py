"""Whether an HTML element is drawn: its inline style parsed as CSS, and the elements a
browser never renders. The one rule for every reader of HTML (ADR 0046): the tree path
(``html``), the streamed path for large pages (``htmlstream``) and raw HTML inside
Markdown (``markdown``).

An element is hidden when it has the ``hidden`` attribute, when ``NEVER_RENDERED``
says a browser does not draw its content, or when its ``style`` attribute, parsed by
tinycss2 (comments, escapes, ``!important`` and repeated properties read as a browser
reads them), sets a property that ``HIDING_PROPERTIES`` judges hiding. Styles set
through CSS classes or stylesheets are not resolved, nor colours inherited from a
parent (SECURITY.md). ``aria-hidden`` does not hide: it takes an element away from
screen readers, not from sight.

    >>> hidden_by_style("display:/**/none")
    True
    >>> hidden_by_style("color: #FFF; background: white url(paper.png)")
    True
    >>> hidden_by_style("opacity: .5; left: -20px")
    False
    >>> hidden_element("dialog", {}), hidden_element("dialog", {"open": ""})
    (True, False)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...instructions.detect import CODES, instruction_codes

__all__ = [
    "HIDING_PROPERTIES",
    "NEVER_RENDERED",
    "hidden_by_style",
    "hidden_element",
    "hidden_text_flags",
]

# -- thresholds ------------------------------------------------------------------------

# Opacity (of the element, of a colour, of filter: opacity()) at or below which text is
# no more than a faint smudge: 0 is the plain trick, 0.01 the one that dodged "== 0".
MAX_INVISIBLE_OPACITY = 0.05
# Glyphs this small (CSS px) are dots: 0, 0.1px and 1px are all used to hide text.
MAX_INVISIBLE_FONT_PX = 1.0
# A box this small (CSS px) whose overflow is clipped shows nothing of its text: the
# "visually hidden" pattern (width/height 0 or 1px with overflow hidden).
MAX_CLIPPED_BOX_PX = 1.0
# Offsets that put a box off any screen: -999px and -9999px are the classic hiding
# offsets (no layout places readable text a thousand pixels before its box), and no
# screen is 10,000px wide and no reader scrolls 10,000px down to one line.
OFFSCREEN_BEFORE_PX = -999.0
OFFSCREEN_AFTER_PX = 10_000.0
# An offset in % (or vw/vh) this far before its origin moves the box by its whole
# container (or viewport): left:-100% is how carousels park the slides not shown.
OFFSCREEN_BEFORE_SHARE = -100.0
# Text against its own background below this contrast ratio (WCAG: 1 is the same
# colour; readable text asks 4.5) cannot be told from the background.
MIN_VISIBLE_CONTRAST = 1.1
# em and rem resolve against the font size; a browser's default is 16px, and inline
# styles cannot tell what a stylesheet set instead. ex and ch are about half of it.
_FONT_PX = 16.0
_PX_PER_UNIT = {
    "px": 1.0, "pt": 96 / 72, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4,
    "q": 96 / 101.6, "em": _FONT_PX, "rem": _FONT_PX, "ex": _FONT_PX / 2, "ch": _FONT_PX / 2,
}
# Units measured against a container or the viewport: in hundredths of it.
_SHARE_UNITS = frozenset({"vw", "vh", "vmin", "vmax", "svw", "svh", "lvw", "lvh", "dvw", "dvh"})

Style = Mapping[str, list[Any]]  # property (lower case) -> the winning value's tokens


# -- reading values --------------------------------------------------------------------


def _px(token: Any, *, font_share: bool = False) -> float | None:
    """A length token in CSS px (a unitless 0 too); a percentage only for font sizes
    (of the 16px default); ``None`` for anything else."""
    if token.type == "number" and token.value == 0:
        return 0.0
    if token.type == "dimension" and token.lower_unit in _PX_PER_UNIT:
        return float(token.value) * _PX_PER_UNIT[token.lower_unit]
    if token.type == "percentage" and font_share:
        return float(token.value) * _FONT_PX / 100
    return None


def _share(token: Any) -> float | None:
    """A percentage or viewport length, in hundredths of its reference."""
    if token.type == "percentage":
        return float(token.value)
    if token.type == "dimension" and token.lower_unit in _SHARE_UNITS:
        return float(token.value)
    return None


def _fraction(token: Any) -> float | None:
    """An opacity: a number, or a percentage of 1."""
    if token.type == "number":
        return float(token.value)
    if token.type == "percentage":
        return float(token.value) / 100
    return None


def _arguments(function: Any) -> list[Any]:
    """A function's arguments without whitespace, comments and commas."""
    return [t for t in function.arguments
            if t.type not in ("whitespace", "comment") and not (t.type == "literal" and t.value == ",")]


def _functions(value: list[Any]) -> Iterable[Any]:
    return (t for t in value if t.type == "function")


def _is_offscreen(token: Any) -> bool:
    px = _px(token)
    if px is not None:
        return px <= OFFSCREEN_BEFORE_PX or px >= OFFSCREEN_AFTER_PX
    share = _share(token)
    return share is not None and share <= OFFSCREEN_BEFORE_SHARE


def _colour(token: Any) -> Any:
    from tinycss2 import color4  # type: ignore[import-untyped, unused-ignore]

    try:
        return color4.parse_color(token)
    except (TypeError, ValueError, AttributeError, ZeroDivisionError):  # malformed colour functions
        return None


def _rgba(colour: Any) -> tuple[float, float, float, float] | None:
    """sRGB channels and alpha (0-1) of a parsed colour; ``None`` for ``currentcolor``
    and colour spaces tinycss2 cannot convert to sRGB."""
    if colour is None or isinstance(colour, str):
        return None
    try:
        red, green, blue = colour.to("srgb").coordinates
    except (NotImplementedError, ValueError, TypeError):
        return None
    return float(red), float(green), float(blue), float(colour.alpha)


def _luminance(red: float, green: float, blue: float) -> float:
    """WCAG relative luminance of an sRGB colour."""
    def linear(c: float) -> float:
        c = min(1.0, max(0.0, c))
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def _background(style: Style) -> tuple[float, float, float, float] | None:
    """The element's own background colour: ``background-color``, else the colour in
    the ``background`` shorthand (whichever was declared last wins in ``style``)."""
    for name in ("background-color", "background"):
        for token in style.get(name, ()):
            rgba = _rgba(_colour(token))
            if rgba is not None:
                return rgba
    return None


# -- the predicates --------------------------------------------------------------------


def _keyword(*words: str) -> Callable[[list[Any], Style], bool]:
    def hides(value: list[Any], style: Style) -> bool:
        return any(t.type == "ident" and t.lower_value in words for t in value)
    return hides


def _faint(value: list[Any], style: Style) -> bool:
    share = _fraction(value[0]) if value else None
    return share is not None and share <= MAX_INVISIBLE_OPACITY


def _tiny_font(value: list[Any], style: Style) -> bool:
    px = _px(value[0], font_share=True) if value else None
    return px is not None and px <= MAX_INVISIBLE_FONT_PX


def _offscreen(value: list[Any], style: Style) -> bool:
    return bool(value) and _is_offscreen(value[0])


def _filtered_out(value: list[Any], style: Style) -> bool:
    """``filter: opacity(0)`` (or any opacity at most the threshold) in the chain."""
    for function in _functions(value):
        if function.lower_name == "opacity":
            args = _arguments(function)
            share = _fraction(args[0]) if args else None
            if share is not None and share <= MAX_INVISIBLE_OPACITY:
                return True
    return False


# transform functions whose arguments are scale factors: any axis at 0 flattens the box.
_SCALES = frozenset({"scale", "scalex", "scaley", "scale3d"})
_TRANSLATES = frozenset({"translate", "translatex", "translatey", "translate3d"})


def _transformed_away(value: list[Any], style: Style) -> bool:
    """A transform that scales an axis to 0 (``scale(0)``, ``scale(0, 1)``, a
    ``matrix`` with a zero axis) or translates the box off screen."""
    for function in _functions(value):
        args = _arguments(function)
        name = function.lower_name
        if name in _SCALES and any(_fraction(a) == 0 for a in args):
            return True
        if name == "matrix" and len(args) == 6:
            a, b, c, d = (_fraction(x) for x in args[:4])
            if (a == 0 and b == 0) or (c == 0 and d == 0):
                return True
        if name in _TRANSLATES and any(_is_offscreen(a) for a in args[:2]):
            return True
    return False


def _zero_scale(value: list[Any], style: Style) -> bool:
    """The ``scale`` property (``scale: 0``, ``scale: 1 0``)."""
    return any(_fraction(t) == 0 for t in value)


def _shorthand(values: list[float]) -> tuple[float, float, float, float]:
    """CSS's 1-4 value shorthand (top, right, bottom, left)."""
    if len(values) == 1:
        return values[0], values[0], values[0], values[0]
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    if len(values) == 3:
        return values[0], values[1], values[2], values[1]
    return values[0], values[1], values[2], values[3]


def _clipped_path(value: list[Any], style: Style) -> bool:
    """``clip-path: inset(…)`` that meets itself (``inset(50%)``, ``inset(100%)``), or
    a circle or ellipse of radius 0."""
    for function in _functions(value):
        args = _arguments(function)
        if function.lower_name == "inset":
            lengths = []
            for a in itertools.takewhile(lambda t: t.type != "ident", args):  # up to "round"
                share = _share(a) if a.type == "percentage" else None
                lengths.append(share if share is not None else 0.0)
            if lengths:
                top, right, bottom, left = _shorthand(lengths)
                if top + bottom >= 100 or left + right >= 100:
                    return True
        elif function.lower_name in ("circle", "ellipse") and args:
            radius = args[0]
            if _px(radius) == 0 or _share(radius) == 0:
                return True
    return False


def _clipped_rect(value: list[Any], style: Style) -> bool:
    """``clip: rect(top, right, bottom, left)`` with no area (``rect(0,0,0,0)``, the
    ``rect(1px,1px,1px,1px)`` of the visually-hidden pattern); ``auto`` is an edge."""
    for function in _functions(value):
        args = _arguments(function)
        if function.lower_name != "rect" or len(args) != 4:
            continue
        top, right, bottom, left = (_px(a) for a in args)
        if (top is not None and bottom is not None and bottom <= top) or (
                left is not None and right is not None and right <= left):
            return True
    return False


def _clips_overflow(style: Style) -> bool:
    return any(t.type == "ident" and t.lower_value in ("hidden", "clip")
               for name in ("overflow", "overflow-x", "overflow-y") for t in style.get(name, ()))


def _collapsed_box(value: list[Any], style: Style) -> bool:
    """A width or height of at most ``MAX_CLIPPED_BOX_PX`` (or 0%) whose overflow is
    clipped: nothing of the text inside is drawn."""
    if not value or not _clips_overflow(style):
        return False
    px = _px(value[0])
    return (px is not None and px <= MAX_CLIPPED_BOX_PX) or _share(value[0]) == 0


def _invisible_ink(value: list[Any], style: Style) -> bool:
    """A text colour that draws nothing: transparent (``transparent``, alpha at most
    the threshold: ``rgba(…,0)``, ``#rrggbb00``), or the element's own background
    colour (contrast under ``MIN_VISIBLE_CONTRAST``, the colour's alpha blended over
    it). A text shadow or stroke still draws the glyphs: then it does not hide."""
    if any(t.type != "ident" or t.lower_value != "none"
           for name in ("text-shadow", "-webkit-text-stroke") for t in style.get(name, ())):
        return False
    ink = _rgba(_colour(value[0])) if value else None
    if ink is None:
        return False
    if ink[3] <= MAX_INVISIBLE_OPACITY:
        return True
    ground = _background(style)
    if ground is None or ground[3] < 1:
        return False
    alpha = ink[3]
    blended = [alpha * i + (1 - alpha) * g for i, g in zip(ink[:3], ground[:3])]  # noqa: RUF007
    light, dark = sorted((_luminance(*blended), _luminance(*ground[:3])), reverse=True)
    return (light + 0.05) / (dark + 0.05) < MIN_VISIBLE_CONTRAST


# Each property that can hide an element's text, and how its (winning) value does.
HIDING_PROPERTIES: dict[str, Callable[[list[Any], Style], bool]] = {
    "display": _keyword("none"),  # no box at all
    "visibility": _keyword("hidden", "collapse"),  # the box is laid out, nothing drawn
    "content-visibility": _keyword("hidden"),  # the contents are skipped
    "opacity": _faint,
    "filter": _filtered_out,  # filter: opacity(0)
    "font-size": _tiny_font,
    "color": _invisible_ink,
    "-webkit-text-fill-color": _invisible_ink,  # overrides color for the glyphs' fill
    # Positioned (or shifted) off screen. Counted whatever `position` says: the
    # position may come from a class, and no ordinary page sets such offsets inline.
    "left": _offscreen,
    "right": _offscreen,
    "top": _offscreen,
    "bottom": _offscreen,
    "margin-left": _offscreen,
    "margin-top": _offscreen,
    "text-indent": _offscreen,  # the image-replacement trick: text pushed out of its box
    "transform": _transformed_away,
    "translate": lambda value, style: any(_is_offscreen(t) for t in value[:2]),
    "scale": _zero_scale,
    "clip-path": _clipped_path,
    "clip": _clipped_rect,
    "width": _collapsed_box,
    "height": _collapsed_box,
    "max-width": _collapsed_box,
    "max-height": _collapsed_box,
}


def _always(attrib: Mapping[str, str]) -> bool:
    return True


# Elements whose content a browser does not draw (by attributes where that depends on
# them): their text is hidden text, on every path, whatever their style says.
NEVER_RENDERED: dict[str, Callable[[Mapping[str, str]], bool]] = {
    "template": _always,  # inert until a script clones it
    "dialog": lambda attrib: "open" not in attrib,  # closed until a script opens it
    "datalist": _always,  # suggestions offered while typing, never drawn as text
    "select": _always,  # its options are drawn only in the opened drop-down
    "canvas": _always,  # fallback for browsers without canvas: none today
    "video": _always,  # fallback for browsers without media elements
    "audio": _always,
    "progress": _always,  # the bar is drawn; the text inside is fallback
    "meter": _always,
    # Fallback content, shown only when there is no resource (or it fails to load).
    "object": lambda attrib: bool((attrib.get("data") or "").strip()),
    "iframe": _always,  # what is inside the tag is never the frame's content
    "noembed": _always,  # legacy fallbacks no current browser shows
    "noframes": _always,
    "rp": _always,  # ruby parentheses for browsers without ruby: none today
    # Tether reads a page as a browser with scripting on: noscript's content is not shown.
    "noscript": _always,
}


def hidden_element(tag: str, attrib: Mapping[str, str]) -> bool:
    """Whether an element no reader sees: the ``hidden`` attribute (``until-found``
    too), an element ``NEVER_RENDERED`` draws nothing of, or an inline style that
    hides it (``hidden_by_style``). ``attrib``'s names are lower case."""
    if "hidden" in attrib:
        return True
    rendered = NEVER_RENDERED.get(tag.lower())
    if rendered is not None and rendered(attrib):
        return True
    style = attrib.get("style")
    return bool(style) and hidden_by_style(style)


@functools.lru_cache(maxsize=4096)  # a page repeats its styles; the parse is the cost
def hidden_by_style(style: str) -> bool:
    """Whether the inline ``style`` (a ``style`` attribute's value) hides its element."""
    computed = _computed(style)
    return any(name in HIDING_PROPERTIES and value and HIDING_PROPERTIES[name](value, computed)
               for name, value in computed.items())


def _computed(style: str) -> dict[str, list[Any]]:
    """Each property's winning value: the last declaration, unless an earlier one is
    ``!important`` and it is not (as the cascade reads one declaration block)."""
    import tinycss2  # type: ignore[import-untyped, unused-ignore]

    values: dict[str, list[Any]] = {}
    important: set[str] = set()
    for declaration in tinycss2.parse_declaration_list(style, skip_comments=True,
                                                       skip_whitespace=True):
        if declaration.type != "declaration":
            continue
        name = declaration.lower_name
        if name in important and not declaration.important:
            continue
        if declaration.important:
            important.add(name)
        values[name] = [t for t in declaration.value if t.type not in ("whitespace", "comment")]
    return values


def hidden_text_flags(*texts: Iterable[str]) -> tuple[str, ...]:
    """``("hidden-html", codes...)`` for the instruction-like text among ``texts`` (text
    no reader sees: comments, hidden elements), else ``()``."""
    found: set[str] = set()
    for text in itertools.chain(*texts):
        found |= instruction_codes(text)
    if not found:
        return ()
    return ("hidden-html", *(code for code in CODES if code in found))

"""Which optional content ("layers") of a PDF a reader sees on screen.

A PDF may put content in optional-content groups (OCGs) and say in its default
configuration (``/OCProperties /D``) which are shown: every group is ON unless
``/BaseState /OFF``; a group in the ``/ON`` array is ON, one in the ``/OFF`` array is
OFF (``/OFF`` wins, as in PDFium). A group whose ``/Intent`` does not include ``/View``
is not a viewing layer and is always shown. Content joins a group through
``/OC /name BDC … EMC`` marked content or a form or image XObject's ``/OC`` entry,
naming an OCG or a membership dictionary (OCMD): its ``/OCGs`` under a ``/P`` policy
(``/AnyOn`` by default), or its ``/VE`` visibility expression.

An ``/AS`` entry for the ``/View`` event with the ``/View`` category hands its groups'
state to their ``/Usage /View /ViewState``, as a viewer does when it shows the page.
Not read: other usage categories (zoom, language, user...) and the alternate
configurations (``/Configs``), which a viewer applies only on request. A document
without ``/OCProperties`` shows all its content (the spec's rule). Everything is read
defensively: a broken entry counts as shown, and expressions are bounded in depth and
size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Layers", "layers_of", "resolved"]

Ref = tuple[int, int]  # an indirect object's number and generation

_MAX_DEPTH = 16  # nesting of /VE expressions followed; deeper counts as shown
_MAX_NODES = 256  # operands of one /VE expression looked at

# An OCMD's /P policy: whether its groups' states (True: ON) make its content shown.
POLICIES: dict[str, Callable[[list[bool]], bool]] = {
    "/AnyOn": any,
    "/AllOn": all,
    "/AnyOff": lambda states: not all(states),
    "/AllOff": lambda states: not any(states),
}


def _ref(value: Any) -> Ref | None:
    number, generation = getattr(value, "idnum", None), getattr(value, "generation", None)
    return (number, generation) if isinstance(number, int) and isinstance(generation, int) else None


def resolved(value: Any) -> Any:
    """The object ``value`` refers to (itself when it is no reference); ``None`` if dangling."""
    try:
        return value.get_object() if hasattr(value, "get_object") else value
    except Exception:  # noqa: BLE001 - a dangling reference is no object
        return None


def _get(mapping: Any, key: str, default: Any = None) -> Any:
    """``mapping[key]`` resolved, or ``default``: pypdf's ``get`` hands back references."""
    return resolved(dict.get(mapping, key, default)) if isinstance(mapping, dict) else default


def _refs(value: Any) -> frozenset[Ref]:
    items = resolved(value)
    if not isinstance(items, list):
        return frozenset()
    return frozenset(r for r in map(_ref, items[:10_000]) if r is not None)


@dataclass
class Layers:
    """The default configuration's group states; ``hides(member)`` asks about an /OC value."""

    base_on: bool = True
    on: frozenset[Ref] = frozenset()
    off: frozenset[Ref] = frozenset()
    viewed: frozenset[Ref] = frozenset()  # groups whose /Usage /View state applies (/AS)
    cache: dict[Ref, bool] = field(default_factory=dict)  # member -> hidden

    def hides(self, member: Any) -> bool:
        """Whether content marked with ``member`` (an OCG or OCMD, by reference or
        direct) is hidden. Anything unreadable counts as shown."""
        if not self.off and self.base_on and not self.viewed:
            return False  # nothing is OFF: no need to read the member at all
        ref = _ref(member)
        if ref is not None and ref in self.cache:
            return self.cache[ref]
        try:
            hidden = not self._shown(member, 0, [0])
        except Exception:  # noqa: BLE001 - a hostile dictionary: keep its content
            hidden = False
        if ref is not None and len(self.cache) < 10_000:
            self.cache[ref] = hidden
        return hidden

    def _group_on(self, member: Any) -> bool:
        ref = _ref(member)
        intent = _get(resolved(member), "/Intent", "/View")
        intents = {str(resolved(i)) for i in intent[:_MAX_NODES]} if isinstance(intent, list) \
            else {str(intent)}
        if not intents & {"/View", "/All"}:
            return True  # a design layer: viewers show it
        if ref in self.viewed:  # the viewer sets it from its usage when the page is viewed
            state = str(_get(_get(_get(resolved(member), "/Usage"), "/View"), "/ViewState"))
            if state in ("/ON", "/OFF"):
                return state == "/ON"
        if ref in self.off:
            return False
        return ref in self.on or self.base_on

    def _shown(self, member: Any, depth: int, nodes: list[int]) -> bool:
        value = resolved(member)
        if str(_get(value, "/Type")) != "/OCMD":
            return self._group_on(member)
        expression = _get(value, "/VE")
        if isinstance(expression, list):
            return self._expression(expression, depth, nodes)
        groups = _get(value, "/OCGs")
        members = groups[:_MAX_NODES] if isinstance(groups, list) else \
            [dict.get(value, "/OCGs")] if groups is not None else []
        members = [m for m in members if isinstance(resolved(m), dict)]
        if not members:
            return True  # an OCMD without groups has no effect
        policy = POLICIES.get(str(_get(value, "/P", "/AnyOn")), any)
        return policy([self._group_on(m) for m in members])

    def _expression(self, expression: Any, depth: int, nodes: list[int]) -> bool:
        """A /VE array: [/And e…], [/Or e…] or [/Not e], each e an OCG or an array."""
        items = resolved(expression)[:_MAX_NODES]
        nodes[0] += len(items)
        if depth >= _MAX_DEPTH or nodes[0] > _MAX_NODES or not items:
            return True
        operator, operands = str(items[0]), items[1:]
        states = [self._expression(o, depth + 1, nodes) if isinstance(resolved(o), list)
                  else self._group_on(o) for o in operands]
        if operator == "/Not":
            return not states[0] if states else True
        if operator in ("/And", "/Or") and states:
            return all(states) if operator == "/And" else any(states)
        return True


def _viewed(auto_states: Any) -> frozenset[Ref]:
    """The groups an /AS entry sets from their /View usage on the View event."""
    if not isinstance(auto_states, list):
        return frozenset()
    refs: set[Ref] = set()
    for entry in auto_states[:_MAX_NODES]:
        entry = resolved(entry)
        category = _get(entry, "/Category")
        categories = {str(resolved(c)) for c in category[:_MAX_NODES]} \
            if isinstance(category, list) else set()
        if str(_get(entry, "/Event")) == "/View" and "/View" in categories:
            refs |= _refs(_get(entry, "/OCGs"))
    return frozenset(refs)


def layers_of(reader: Any) -> Layers:
    """The default optional-content configuration of a pypdf ``reader``'s document."""
    try:
        config = _get(_get(reader.trailer["/Root"], "/OCProperties"), "/D")
        if not isinstance(config, dict):
            return Layers()
        return Layers(base_on=str(_get(config, "/BaseState", "/ON")) != "/OFF",
                      on=_refs(_get(config, "/ON")), off=_refs(_get(config, "/OFF")),
                      viewed=_viewed(_get(config, "/AS")))
    except Exception:  # noqa: BLE001 - an unreadable configuration: every layer is shown
        return Layers()

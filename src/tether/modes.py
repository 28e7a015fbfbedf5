"""Modes of the extra gates: ``off``, ``shadow`` or ``on`` for each.

Gates: ``abstain`` (the retrieval probe and the answer check), ``contradiction``
and ``figures`` (the verifier's checks) and ``judge`` (the model judge, when one is
configured). The citation guard itself has no mode: it is always on.

``shadow`` is how a gate is introduced: it runs the whole decision and logs what
it would have suppressed, changing nothing. An abstention gate switched straight to
``on`` either suppresses good answers nobody sees or suppresses nothing and nobody
learns; read the shadow log first, then enforce.

Modes come from the ``modes`` setting and, per call, from ``--mode`` / the API's
``modes`` argument; the call wins gate by gate. Both accept ``gate=mode`` items or
a single bare mode for every gate:

    >>> parse_modes("abstain=shadow, figures=off")
    {'abstain': 'shadow', 'figures': 'off'}
    >>> resolve_modes("shadow", {"figures": "on"})
    {'abstain': 'shadow', 'contradiction': 'shadow', 'figures': 'on', 'judge': 'shadow'}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .errors import ConfigError

__all__ = ["GATES", "MODES", "parse_modes", "resolve_modes"]

GATES = ("abstain", "contradiction", "figures", "judge")
MODES = ("off", "shadow", "on")
DEFAULT_MODE = "on"

ModesSpec = str | Iterable[str] | Mapping[str, str] | None


def _items(spec: ModesSpec) -> list[str]:
    if spec is None:
        return []
    if isinstance(spec, Mapping):
        return [f"{gate}={mode}" for gate, mode in spec.items()]
    if isinstance(spec, str):
        spec = [spec]
    return [part.strip() for item in spec for part in str(item).split(",") if part.strip()]


def parse_modes(spec: ModesSpec) -> dict[str, str]:
    """Gate → mode for what ``spec`` sets; a bare mode sets every gate."""
    out: dict[str, str] = {}
    for item in _items(spec):
        gate, sep, mode = (s.strip().lower() for s in item.partition("="))
        if not sep:
            gate, mode = "", gate
        if mode not in MODES:
            raise ConfigError(
                f"mode {mode!r} in {item!r} is not one of {', '.join(MODES)}",
                hint="write GATE=MODE (e.g. abstain=shadow) or one mode for every gate",
            )
        if not sep:
            out.update({g: mode for g in GATES})
        elif gate in GATES:
            out[gate] = mode
        else:
            raise ConfigError(
                f"unknown gate {gate!r} in {item!r}", hint="gates: " + ", ".join(GATES)
            )
    return out


def resolve_modes(configured: ModesSpec = None, call: ModesSpec = None) -> dict[str, str]:
    """Every gate's mode: ``on`` by default, then the setting, then the call."""
    modes = {gate: DEFAULT_MODE for gate in GATES}
    modes.update(parse_modes(configured))
    modes.update(parse_modes(call))
    return modes

"""What the integrations' tests share: one answer against a few passages, whose
verdicts the lexical guard gives (conftest pins reader = "lexical"), and the rule that
a framework missing here skips its tests, but fails them under CI=true (the test extra
installs every framework)."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

# Haystack reports usage to its makers unless told not to; tests reach no network.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

PASSAGES = {
    "water": "Water boils at 100 degrees Celsius at sea level. It freezes at 0 degrees.",
    "acetone": "Acetone is a colourless liquid. Its flash point is minus 20 degrees Celsius, "
               "so it ignites easily.",
    "cheese": "Cheese is made from milk.",
}
SUPPORTED = {  # sentence -> the passage that supports it
    "Water boils at 100 degrees Celsius at sea level.": "water",
    "The flash point of acetone is minus 20 degrees Celsius.": "acetone",
}
CONTRADICTED = "Water boils at 90 degrees Celsius at sea level."
UNSUPPORTED = "The moon orbits the earth every month."
ANSWER = " ".join([*SUPPORTED, CONTRADICTED, UNSUPPORTED])
# Over 10 MB of text in one passage: the guard still reads it and still cites the right one.
HUGE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 180_000
WITH_SURROGATES = f"{next(iter(SUPPORTED))} \ud800 The moon is \udcff made of rock."


def framework(module: str) -> ModuleType:
    """``module`` imported, or the test module skipped (failed under CI=true) without it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{module} is required in CI (the test extra installs it): {exc}", pytrace=False)
        pytest.skip(f"{module} is not installed; CI=true makes this a failure", allow_module_level=True)


def outcomes(guarded: object) -> dict[str, tuple[str, str | None]]:
    """Each sentence of a GuardedAnswer -> (outcome, the source it was read against)."""
    from tether.integrations import GuardedAnswer

    assert isinstance(guarded, GuardedAnswer)
    kept = {s.text: (s.verdict.outcome, s.source_id) for s in guarded.sentences}
    return kept | {d.text: (d.verdict.outcome, d.verdict.passage_id) for d in guarded.dropped}


EXPECTED = {text: ("supported", source) for text, source in SUPPORTED.items()} | {
    CONTRADICTED: ("contradicted", "water"),
}

"""Generate stage: propose answer sentences from the retrieved passages.

A ``Generator`` has one main method, ``generate``. Its output is only a proposal:
the guard re-checks every sentence against the retrieved passages, and the passage
ids a generator attaches are hints, never proof. Besides drafts it may yield
``Remark``s (a lead-in, ids it ignored): recorded in the trace, never shown.
Built-in generators register through the same entry-point group
(``tether.generators``) as third-party ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from importlib.metadata import entry_points
from typing import Any, Protocol

from ..errors import ConfigError
from ..records import Draft, Hit, Remark

__all__ = ["Generator", "load_generator"]

ENTRY_POINT_GROUP = "tether.generators"


class Generator(Protocol):
    name: str

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft | Remark]:
        """Yield draft sentences as they are ready (a streaming provider yields early),
        and any remarks about them."""
        ...


def _builtin() -> dict[str, str]:
    return {
        "extractive": "tether.generate.extractive:ExtractiveGenerator",
        "openai": "tether.generate.openai:OpenAIGenerator",
        "anthropic": "tether.generate.anthropic:AnthropicGenerator",
    }


def load_generator(name: str = "extractive", **options: Any) -> Generator:
    """Instantiate a generator by its registered name."""
    targets = _builtin()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        targets.setdefault(ep.name, ep.value)
    if name not in targets:
        raise ConfigError(
            f"unknown generator {name!r}", hint="known generators: " + ", ".join(sorted(targets))
        )
    module_name, _, attr = targets[name].partition(":")
    module = __import__(module_name, fromlist=[attr])
    factory = getattr(module, attr)
    generator: Generator = factory(**options)
    return generator

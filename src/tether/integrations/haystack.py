"""The guard as a Haystack component (``pip install 'tether[haystack]'``).

``TetherGuard`` sits after a generator: ``replies`` (a generator's texts or a chat
generator's messages) and ``documents`` (what the retriever found) in; out come ``replies`` with only their verified sentences (so it
stands where the generator's replies went, before an ``AnswerBuilder``), ``guarded``
(one ``GuardedAnswer`` per reply: each kept sentence citing its ``Document``) and
``dropped`` (every sentence held back, with its verdict)::

    pipe.add_component("guard", TetherGuard())
    pipe.connect("llm.replies", "guard.replies")
    pipe.connect("retriever.documents", "guard.documents")

A pipeline holding it is saved as YAML with its ``modes`` (settings and judge objects
cannot be saved); Haystack loads it once told to trust the module:
``Pipeline.loads(text, allowed_modules=["tether.integrations.haystack"])``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import Settings
from ..errors import InputError
from ..judges.base import Judge
from ..records import Dropped
from .guarded import FROM_SETTINGS, Guard, GuardedAnswer, MissingFramework, Source

try:
    from haystack import Document, component, default_from_dict, default_to_dict
    from haystack.core.errors import SerializationError
    from haystack.dataclasses import ChatMessage
except ImportError as exc:
    raise MissingFramework("Haystack", "haystack") from exc

__all__ = ["TetherGuard"]


def _reply_text(reply: object) -> object:
    """A chat message's text (``None``, a message of tool calls only, is no text)."""
    if isinstance(reply, ChatMessage):
        return reply.text or ""
    return reply


def _sources(documents: object) -> list[Source]:
    if not isinstance(documents, list):
        raise InputError(f"documents must be a list of Document, not {type(documents).__name__}")
    for index, document in enumerate(documents):
        if not isinstance(document, Document):
            raise InputError(f"documents[{index}] must be a Document, not {type(document).__name__}")
    # A document without text (an image's blob) supports nothing.
    return [Source(document.id, document.content or "", document) for document in documents]


@component
class TetherGuard:
    """Verifies a generator's replies against the retrieved documents (see the module's
    docstring); ``settings``, ``judge`` and ``modes`` are ``Guard``'s."""

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        judge: Judge | None = FROM_SETTINGS,
        modes: Mapping[str, str] | None = None,
    ) -> None:
        self.guard = Guard(settings=settings, judge=judge, modes=modes)
        # Objects a pipeline's YAML cannot hold; without them the guard is the settings'.
        self._objects = [name for name, given in (("settings", settings is not None),
                                                  ("judge", judge is not FROM_SETTINGS)) if given]

    def to_dict(self) -> dict[str, Any]:
        """The component as a pipeline's YAML holds it: its ``modes`` (the settings and
        judge come from Tether's configuration where the pipeline is loaded)."""
        if self._objects:
            raise SerializationError(
                f"a TetherGuard given {' and '.join(self._objects)} cannot be serialized: set them "
                "in Tether's configuration (tether.toml or TETHER_* variables) instead")
        return default_to_dict(self, modes=self.guard.modes)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TetherGuard:
        return default_from_dict(cls, data)

    @component.output_types(replies=list[str], guarded=list[GuardedAnswer], dropped=list[Dropped])
    def run(self, replies: list[str] | list[ChatMessage], documents: list[Document]) -> dict[str, Any]:
        if not isinstance(replies, list):
            raise InputError(f"replies must be a list of str or ChatMessage, not {type(replies).__name__}")
        sources = _sources(documents)
        guarded = [self.guard.check(_reply_text(reply), sources) for reply in replies]
        return {
            "replies": [answer.text for answer in guarded],
            "guarded": guarded,
            "dropped": [dropped for answer in guarded for dropped in answer.dropped],
        }

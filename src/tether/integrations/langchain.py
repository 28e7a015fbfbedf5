"""The guard as a LangChain Runnable (``pip install 'tether[langchain]'``).

``TetherGuard`` takes ``{"answer": ..., "documents": [...]}`` — the answer as text or
as the chat model's message, the retrieved ``Document`` objects — and returns a
``GuardedAnswer``: each sentence a document supports, citing it (``source`` is the
``Document``), and each dropped one with its verdict. It composes like any Runnable::

    chain = RunnableParallel(answer=prompt | llm, documents=retriever) | TetherGuard()
    chain.invoke("What is the flash point of acetone?").text
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config import Settings
from ..errors import InputError
from ..judges.base import Judge
from .guarded import FROM_SETTINGS, Guard, GuardedAnswer, MissingFramework, Source

try:
    from langchain_core.documents import Document
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable, RunnableConfig
except ImportError as exc:
    raise MissingFramework("LangChain", "langchain") from exc

__all__ = ["TetherGuard"]

INPUT_KEYS = ("answer", "documents")


def _answer_text(answer: object) -> str:
    """The answer as text: a string, or a chat model's message (its text blocks)."""
    if isinstance(answer, BaseMessage):
        return str(answer.text)
    if not isinstance(answer, str):
        raise InputError(f"'answer' must be text or a chat message, not {type(answer).__name__}")
    return answer


def _sources(documents: object) -> list[Source]:
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise InputError(f"'documents' must be a list of Document, not {type(documents).__name__}")
    for index, document in enumerate(documents):
        if not isinstance(document, Document):
            raise InputError(f"documents[{index}] must be a Document, not {type(document).__name__}")
    return [Source(document.id, document.page_content, document) for document in documents]


class TetherGuard(Runnable[Mapping[str, Any], GuardedAnswer]):
    """``{"answer", "documents"}`` → ``GuardedAnswer`` (see the module's docstring).

    ``settings``, ``judge`` and ``modes`` are ``Guard``'s: by default the settings'
    judge reads every verdict, as ``tether verify`` does.
    """

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        judge: Judge | None = FROM_SETTINGS,
        modes: Mapping[str, str] | None = None,
    ) -> None:
        self.guard = Guard(settings=settings, judge=judge, modes=modes)

    def _check(self, request: Mapping[str, Any]) -> GuardedAnswer:
        if not isinstance(request, Mapping):
            raise InputError(f"the input must be a dict with {INPUT_KEYS}, not {type(request).__name__}")
        missing = [key for key in INPUT_KEYS if key not in request]
        if missing:
            raise InputError(f"the input has no {', '.join(map(repr, missing))} (it needs {INPUT_KEYS})")
        return self.guard.check(_answer_text(request["answer"]), _sources(request["documents"]))

    def invoke(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> GuardedAnswer:
        # Through LangChain's run machinery: callbacks and tracing see the guard as a step.
        return self._call_with_config(self._check, input, config, run_type="chain")

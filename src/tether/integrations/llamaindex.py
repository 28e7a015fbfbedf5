"""The guard for LlamaIndex (``pip install 'tether[llamaindex]'``).

``ResponseGuard.check(text, source_nodes)`` verifies a response's text against its
source nodes and returns a ``GuardedAnswer``: each sentence a node supports, citing it
(``source`` is the ``NodeWithScore``), and each dropped one with its verdict. Called on
a ``Response`` it returns one with only the verified sentences, the cited nodes as
``source_nodes`` and the ``GuardedAnswer`` in ``metadata["tether"]``.
``GuardedQueryEngine`` wraps any query engine so that every answer goes through it::

    engine = GuardedQueryEngine(index.as_query_engine())
    response = engine.query("What is the flash point of acetone?")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config import Settings
from ..errors import InputError
from ..judges.base import Judge
from .guarded import FROM_SETTINGS, Guard, GuardedAnswer, MissingFramework, Source

try:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.response.schema import (
        RESPONSE_TYPE,
        AsyncStreamingResponse,
        Response,
        StreamingResponse,
    )
    from llama_index.core.callbacks.base import CallbackManager
    from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
except ImportError as exc:
    raise MissingFramework("LlamaIndex", "llamaindex") from exc

__all__ = ["GuardedQueryEngine", "ResponseGuard"]

METADATA_KEY = "tether"


def _sources(nodes: object) -> list[Source]:
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Sequence):
        raise InputError(f"source nodes must be a list of NodeWithScore, not {type(nodes).__name__}")
    for index, node in enumerate(nodes):
        if not isinstance(node, NodeWithScore):
            raise InputError(f"source node {index} must be a NodeWithScore, not {type(node).__name__}")
    # The node's own text, without the metadata LlamaIndex prepends for an LLM: a quote
    # is a range of what the node says.
    return [Source(node.node.node_id, node.node.get_content(metadata_mode=MetadataMode.NONE), node)
            for node in nodes]


class ResponseGuard:
    """Verifies LlamaIndex responses (see the module's docstring); ``settings``,
    ``judge`` and ``modes`` are ``Guard``'s."""

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        judge: Judge | None = FROM_SETTINGS,
        modes: Mapping[str, str] | None = None,
    ) -> None:
        self.guard = Guard(settings=settings, judge=judge, modes=modes)

    def check(self, text: str | None, source_nodes: Sequence[NodeWithScore]) -> GuardedAnswer:
        """``text`` (``None``, LlamaIndex's empty response, is no sentence) against the nodes."""
        return self.guard.check("" if text is None else text, _sources(source_nodes))

    def __call__(self, response: RESPONSE_TYPE) -> Response:
        """The guarded ``Response``; a streaming one is read to its end first (the guard
        needs whole sentences)."""
        if isinstance(response, AsyncStreamingResponse):
            raise InputError("an async streaming response is guarded with 'await guard.acall(response)'")
        if isinstance(response, StreamingResponse):
            response = response.get_response()
        if not isinstance(response, Response):
            raise InputError(f"the guard reads a text Response, not {type(response).__name__}")
        return self._guarded(response)

    async def acall(self, response: RESPONSE_TYPE) -> Response:
        if isinstance(response, AsyncStreamingResponse):
            response = await response.get_response()
        return self(response)

    def _guarded(self, response: Response) -> Response:
        guarded = self.check(response.response, response.source_nodes)
        return Response(response=guarded.text, source_nodes=guarded.cited(),
                        metadata={**(response.metadata or {}), METADATA_KEY: guarded})


class GuardedQueryEngine(BaseQueryEngine):
    """A query engine whose every answer (``query``, ``aquery``, ``synthesize``) has
    been through ``guard`` (a ``ResponseGuard()`` by default)."""

    def __init__(
        self,
        query_engine: BaseQueryEngine,
        *,
        guard: ResponseGuard | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        self.query_engine = query_engine
        self.guard = guard or ResponseGuard()
        super().__init__(callback_manager or query_engine.callback_manager)

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {"query_engine": self.query_engine}

    def _query(self, query_bundle: QueryBundle) -> Response:
        return self.guard(self.query_engine.query(query_bundle))

    async def _aquery(self, query_bundle: QueryBundle) -> Response:
        return await self.guard.acall(await self.query_engine.aquery(query_bundle))

    def retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.query_engine.retrieve(query_bundle)

    def synthesize(
        self,
        query_bundle: QueryBundle,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
    ) -> Response:
        return self.guard(self.query_engine.synthesize(query_bundle, nodes, additional_source_nodes))

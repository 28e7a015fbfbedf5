"""The guard for LlamaIndex, on its own objects: TextNode and NodeWithScore from a real
SummaryIndex's retriever, a query engine that answers a fixed text (the LLM's stand-in,
offline) wrapped in ``GuardedQueryEngine``, and ``ResponseGuard`` on each response kind."""

from __future__ import annotations

import asyncio

import pytest

from tether.errors import InputError
from tether.integrations import GuardedAnswer
from tether.text.sentences import split_sentences

from .conftest import (
    ANSWER,
    CONTRADICTED,
    EXPECTED,
    HUGE,
    PASSAGES,
    SUPPORTED,
    UNSUPPORTED,
    WITH_SURROGATES,
    framework,
    outcomes,
)

framework("llama_index.core")

from llama_index.core import SummaryIndex  # noqa: E402
from llama_index.core.base.response.schema import (  # noqa: E402
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.bridge.pydantic import BaseModel  # noqa: E402
from llama_index.core.llms import MockLLM  # noqa: E402
from llama_index.core.query_engine import CustomQueryEngine  # noqa: E402
from llama_index.core.schema import NodeWithScore, TextNode  # noqa: E402

from tether.integrations.llamaindex import GuardedQueryEngine, ResponseGuard  # noqa: E402

NODES = [TextNode(text=text, id_=key, metadata={"file_name": f"{key}.txt"}) for key, text in PASSAGES.items()]


class FixedAnswerEngine(CustomQueryEngine):
    """Retrieves with a real retriever and answers ``answer``, as an LLM might have."""

    retriever: object
    answer: str | None

    def custom_query(self, query_str: str) -> Response:
        return Response(self.answer, source_nodes=self.retriever.retrieve(query_str), metadata={"model": "fixed"})


@pytest.fixture(scope="module")
def guard() -> ResponseGuard:
    return ResponseGuard()


def engine(answer: str | None, guard: ResponseGuard, nodes: list[TextNode] = NODES) -> GuardedQueryEngine:
    retriever = SummaryIndex(nodes).as_retriever()
    return GuardedQueryEngine(FixedAnswerEngine(retriever=retriever, answer=answer), guard=guard)


def test_a_query_keeps_supported_sentences_citing_their_node_and_drops_the_rest(guard):
    response = engine(ANSWER, guard).query("When does water boil?")
    assert isinstance(response, Response)
    assert response.response == " ".join(SUPPORTED)
    assert [n.node.node_id for n in response.source_nodes] == ["water", "acetone"]
    guarded = response.metadata["tether"]
    assert isinstance(guarded, GuardedAnswer) and response.metadata["model"] == "fixed"
    assert outcomes(guarded).items() >= EXPECTED.items()
    for sentence in guarded.sentences:
        assert isinstance(sentence.source, NodeWithScore) and sentence.source.node.node_id == sentence.source_id
        start, end = sentence.verdict.span
        assert sentence.quote == sentence.source.node.text[start:end]
    assert [(d.text, d.verdict.outcome) for d in guarded.dropped] == [
        (CONTRADICTED, "contradicted"), (UNSUPPORTED, "unsupported")]


def test_the_frameworks_own_query_engine_is_guarded(guard):
    # MockLLM answers with its prompt: the nodes' sentences, verbatim, amid the template's.
    wrapped = GuardedQueryEngine(SummaryIndex(NODES).as_query_engine(llm=MockLLM()), guard=guard)
    guarded = wrapped.query("When does water boil?").metadata["tether"]
    assert {(s.source_id, s.text) for s in guarded.sentences} == {
        (key, sentence) for key, text in PASSAGES.items() for sentence in split_sentences(text)}
    assert "Context information is below." in {d.text for d in guarded.dropped}
    assert all(d.verdict.outcome != "supported" for d in guarded.dropped)


def test_aquery_is_guarded_too(guard):
    response = asyncio.run(engine(ANSWER, guard).aquery("When does water boil?"))
    assert response.response == " ".join(SUPPORTED)


def test_check_reads_text_and_source_nodes(guard):
    nodes = [NodeWithScore(node=node, score=1.0) for node in NODES]
    guarded = guard.check(ANSWER, nodes)
    assert outcomes(guarded).items() >= EXPECTED.items()


def test_the_quote_is_the_node_text_not_the_metadata_llamaindex_prepends(guard):
    guarded = guard.check(next(iter(SUPPORTED)), [NodeWithScore(node=NODES[0], score=0.5)])
    assert guarded.sentences[0].verdict.span[0] == 0
    assert guarded.sentences[0].quote == next(iter(SUPPORTED))


def test_a_streaming_response_is_read_to_its_end_first(guard):
    nodes = [NodeWithScore(node=node) for node in NODES]
    # Tokens that cut the first sentence in two: the guard reads whole sentences.
    streaming = StreamingResponse(response_gen=iter([ANSWER[:30], ANSWER[30:]]), source_nodes=nodes)
    assert guard(streaming).response == " ".join(SUPPORTED)

    async def tokens():
        yield ANSWER

    async def guarded_async() -> Response:
        return await guard.acall(AsyncStreamingResponse(response_gen=tokens(), source_nodes=nodes))

    assert asyncio.run(guarded_async()).response == " ".join(SUPPORTED)


def test_an_empty_response_and_no_nodes_give_defined_results(guard):
    for answer in (None, ""):
        response = engine(answer, guard).query("anything")
        assert (response.response, response.source_nodes) == ("", [])
        assert response.metadata["tether"] == GuardedAnswer((), ())
    alone = guard(Response(ANSWER, source_nodes=[]))
    assert (alone.response, alone.source_nodes) == ("", [])
    assert {d.verdict.outcome for d in alone.metadata["tether"].dropped} == {"unsupported"}


def test_a_10_mb_node_is_read_and_the_right_one_still_cited(guard):
    response = engine(ANSWER, guard, [TextNode(text=HUGE, id_="huge"), *NODES]).query("water")
    assert outcomes(response.metadata["tether"]).items() >= EXPECTED.items()


def test_lone_surrogates_give_a_defined_result(guard):
    nodes = [TextNode(text=PASSAGES["water"] + " \udcff", id_="water")]
    guarded = engine(WITH_SURROGATES, guard, nodes).query("water").metadata["tether"]
    assert [s.source_id for s in guarded.sentences] == ["water"]
    assert [d.verdict.outcome for d in guarded.dropped] == ["unsupported"]


class Structured(BaseModel):
    answer: str


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (PydanticResponse(Structured(answer=ANSWER)), "the guard reads a text Response, not PydanticResponse"),
        ("just text", "the guard reads a text Response, not str"),
        (Response(ANSWER.encode(), source_nodes=[]), "the answer must be text (str), not bytes"),
        (Response(ANSWER, source_nodes=NODES), "source node 0 must be a NodeWithScore, not TextNode"),
        (Response(ANSWER, source_nodes="water"), "source nodes must be a list of NodeWithScore, not str"),
    ],
)
def test_bad_input_is_one_line_error(guard, response, message):
    with pytest.raises(InputError) as caught:
        guard(response)
    assert str(caught.value) == message


def test_an_async_stream_outside_await_is_refused_in_one_line(guard):
    async def tokens():
        yield ANSWER

    with pytest.raises(InputError, match="await guard.acall"):
        guard(AsyncStreamingResponse(response_gen=tokens()))

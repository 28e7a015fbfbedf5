"""The guard as a Haystack component, in real pipelines: Haystack's in-memory store and
BM25 retriever, its prompt builders, a generator that answers a fixed text (the LLM's
stand-in, offline), then ``TetherGuard`` and Haystack's ``AnswerBuilder``."""

from __future__ import annotations

from typing import Any

import pytest

from tether.errors import InputError
from tether.integrations import GuardedAnswer

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

framework("haystack")

from haystack import Document, Pipeline, component  # noqa: E402
from haystack.components.builders import AnswerBuilder, ChatPromptBuilder, PromptBuilder  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: E402
from haystack.core.errors import PipelineRuntimeError, SerializationError  # noqa: E402
from haystack.dataclasses import ChatMessage, GeneratedAnswer, ToolCall  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

from tether.integrations.haystack import TetherGuard  # noqa: E402

DOCUMENTS = [Document(id=key, content=text, meta={"file": f"{key}.txt"}) for key, text in PASSAGES.items()]
QUESTION = "When does water boil and what is the flash point of acetone?"


@component
class FixedGenerator:
    """Answers every prompt with ``answer``, as an LLM might have."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    @component.output_types(replies=list[str])
    def run(self, prompt: str) -> dict[str, Any]:
        return {"replies": [self.answer]}


@component
class FixedChatGenerator:
    def __init__(self, answer: str) -> None:
        self.answer = answer

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
        return {"replies": [ChatMessage.from_assistant(self.answer)]}


@pytest.fixture
def guard() -> TetherGuard:
    # Haystack adds a component instance to one pipeline only.
    return TetherGuard()


def rag_pipeline(guard: TetherGuard, *, chat: bool = False) -> Pipeline:
    store = InMemoryDocumentStore()
    store.write_documents(DOCUMENTS)
    pipe = Pipeline()
    pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=len(DOCUMENTS)))
    if chat:
        template = [ChatMessage.from_user("{% for d in documents %}{{ d.content }}\n{% endfor %}{{ query }}")]
        pipe.add_component("prompt", ChatPromptBuilder(template, required_variables=["documents", "query"]))
        pipe.add_component("llm", FixedChatGenerator(ANSWER))
        pipe.connect("prompt.prompt", "llm.messages")
    else:
        template = "{% for d in documents %}{{ d.content }}\n{% endfor %}{{ query }}"
        pipe.add_component("prompt", PromptBuilder(template, required_variables=["documents", "query"]))
        pipe.add_component("llm", FixedGenerator(ANSWER))
        pipe.connect("prompt.prompt", "llm.prompt")
    pipe.add_component("guard", guard)
    pipe.add_component("answer", AnswerBuilder())
    pipe.connect("retriever.documents", "prompt.documents")
    pipe.connect("llm.replies", "guard.replies")
    pipe.connect("retriever.documents", "guard.documents")
    pipe.connect("guard.replies", "answer.replies")
    pipe.connect("retriever.documents", "answer.documents")
    return pipe


@pytest.mark.parametrize("chat", [False, True], ids=["generator", "chat generator"])
def test_a_pipeline_keeps_supported_sentences_citing_their_document_and_drops_the_rest(guard, chat):
    result = rag_pipeline(guard, chat=chat).run(
        {"retriever": {"query": QUESTION}, "prompt": {"query": QUESTION}, "answer": {"query": QUESTION}},
        include_outputs_from={"guard"},
    )
    [answer] = result["answer"]["answers"]
    assert isinstance(answer, GeneratedAnswer) and answer.data == " ".join(SUPPORTED)
    assert result["guard"]["replies"] == [" ".join(SUPPORTED)]
    [guarded] = result["guard"]["guarded"]
    assert outcomes(guarded).items() >= EXPECTED.items()
    for sentence in guarded.sentences:
        assert isinstance(sentence.source, Document) and sentence.source.id == sentence.source_id
        start, end = sentence.verdict.span
        assert sentence.quote == sentence.source.content[start:end]
    assert [doc.meta["file"] for doc in guarded.cited()] == ["water.txt", "acetone.txt"]
    assert [(d.text, d.verdict.outcome) for d in result["guard"]["dropped"]] == [
        (CONTRADICTED, "contradicted"), (UNSUPPORTED, "unsupported")]


def guard_only() -> Pipeline:
    pipe = Pipeline()
    pipe.add_component("guard", TetherGuard())
    return pipe


def test_each_reply_is_guarded_on_its_own(guard):
    result = guard.run(replies=[ANSWER, CONTRADICTED], documents=DOCUMENTS)
    assert result["replies"] == [" ".join(SUPPORTED), ""]
    assert [len(g.dropped) for g in result["guarded"]] == [2, 1]
    assert [d.text for d in result["dropped"]] == [CONTRADICTED, UNSUPPORTED, CONTRADICTED]


def test_empty_replies_and_no_documents_give_defined_results(guard):
    pipe = guard_only()
    empty = pipe.run({"guard": {"replies": [""], "documents": DOCUMENTS}})["guard"]
    assert empty == {"replies": [""], "guarded": [GuardedAnswer((), ())], "dropped": []}
    assert pipe.run({"guard": {"replies": [], "documents": DOCUMENTS}})["guard"] == {
        "replies": [], "guarded": [], "dropped": []}
    alone = pipe.run({"guard": {"replies": [ANSWER], "documents": []}})["guard"]
    assert alone["replies"] == [""]
    assert {d.verdict.outcome for d in alone["dropped"]} == {"unsupported"}


def test_a_chat_reply_without_text_is_an_empty_answer(guard):
    tool_call = ChatMessage.from_assistant(tool_calls=[ToolCall(tool_name="search", arguments={})])
    result = guard.run(replies=[tool_call, ChatMessage.from_assistant(ANSWER)], documents=DOCUMENTS)
    assert result["replies"] == ["", " ".join(SUPPORTED)]


def test_a_document_without_text_supports_nothing(guard):
    result = guard.run(replies=[ANSWER], documents=[Document(id="image", content=None)])
    assert result["replies"] == [""] and len(result["dropped"]) == 4


def test_a_10_mb_document_is_read_and_the_right_one_still_cited(guard):
    documents = [Document(id="huge", content=HUGE), *DOCUMENTS]
    [guarded] = guard_only().run({"guard": {"replies": [ANSWER], "documents": documents}})["guard"]["guarded"]
    assert outcomes(guarded).items() >= EXPECTED.items()


def test_lone_surrogates_give_a_defined_result(guard):
    documents = [Document(id="water", content=PASSAGES["water"] + " \udcff")]
    [guarded] = guard.run(replies=[WITH_SURROGATES], documents=documents)["guarded"]
    assert [s.source_id for s in guarded.sentences] == ["water"]
    assert [d.verdict.outcome for d in guarded.dropped] == ["unsupported"]


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"replies": [ANSWER.encode()], "documents": DOCUMENTS}, "the answer must be text (str), not bytes"),
        ({"replies": ANSWER, "documents": DOCUMENTS}, "replies must be a list of str or ChatMessage, not str"),
        ({"replies": [ANSWER], "documents": PASSAGES["water"]}, "documents must be a list of Document, not str"),
        ({"replies": [ANSWER], "documents": [PASSAGES["water"]]}, "documents[0] must be a Document, not str"),
    ],
)
def test_bad_input_is_haystacks_component_error_carrying_one_line(guard, inputs, message):
    with pytest.raises(InputError) as direct:
        guard.run(**inputs)
    assert str(direct.value) == message
    with pytest.raises(PipelineRuntimeError) as caught:
        guard_only().run({"guard": inputs})
    assert caught.value.component_name == "guard"
    assert str(caught.value).splitlines()[-1] == f"Error: {message}"


def test_a_pipeline_with_the_guard_is_saved_and_loaded_as_yaml():
    pipe = Pipeline()
    pipe.add_component("guard", TetherGuard(modes={"judge": "off"}))
    # Haystack loads only classes of modules the caller trusts.
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["tether.integrations.haystack"])
    assert loaded.get_component("guard").guard.modes == {"judge": "off"}
    assert loaded.run({"guard": {"replies": [ANSWER], "documents": DOCUMENTS}})["guard"]["replies"] == [
        " ".join(SUPPORTED)]


def test_a_guard_given_objects_says_why_it_cannot_be_saved():
    pipe = Pipeline()
    pipe.add_component("guard", TetherGuard(judge=None))
    with pytest.raises(SerializationError, match="given judge cannot be serialized"):
        pipe.dumps()

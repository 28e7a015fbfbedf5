"""The guard as a LangChain Runnable, in a real chain: LangChain's in-memory vector store
as the retriever and its fake models as the LLM (offline), then ``TetherGuard``."""

from __future__ import annotations

import pytest

from tether.errors import InputError

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

framework("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings.fake import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.language_models.fake import FakeListLLM  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.prompts import PromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableParallel, RunnablePassthrough  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

from tether.integrations.langchain import TetherGuard  # noqa: E402

DOCUMENTS = [Document(page_content=text, id=key, metadata={"source": f"{key}.txt"})
             for key, text in PASSAGES.items()]
PROMPT = PromptTemplate.from_template("Answer from the context.\n{question}")


@pytest.fixture(scope="module")
def guard() -> TetherGuard:
    return TetherGuard()


@pytest.fixture(scope="module")
def retriever():
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(DOCUMENTS)
    return store.as_retriever(search_kwargs={"k": len(DOCUMENTS)})


@pytest.mark.parametrize("model", [FakeListLLM(responses=[ANSWER]), FakeListChatModel(responses=[ANSWER])],
                         ids=["llm", "chat model"])
def test_a_chain_keeps_supported_sentences_citing_their_document_and_drops_the_rest(guard, retriever, model):
    answer = {"question": RunnablePassthrough()} | PROMPT | model
    chain = RunnableParallel(answer=answer, documents=retriever) | guard
    guarded = chain.invoke("When does water boil?")
    assert outcomes(guarded).items() >= EXPECTED.items()
    assert guarded.text == " ".join(SUPPORTED)
    for sentence in guarded.sentences:
        assert isinstance(sentence.source, Document) and sentence.source.id == sentence.source_id
        start, end = sentence.verdict.span
        assert sentence.quote == sentence.source.page_content[start:end]
    assert [d.text for d in guarded.dropped] == [CONTRADICTED, UNSUPPORTED]
    assert guarded.dropped[0].verdict.outcome == "contradicted"
    assert [doc.metadata["source"] for doc in guarded.cited()] == ["water.txt", "acetone.txt"]


def test_documents_without_ids_are_cited_by_their_place(guard):
    documents = [Document(page_content=text) for text in PASSAGES.values()]
    guarded = guard.invoke({"answer": ANSWER, "documents": documents})
    assert [(s.source_id, s.source) for s in guarded.sentences] == [("#0", documents[0]), ("#1", documents[1])]


def test_a_chat_message_with_content_blocks_is_read_as_its_text(guard):
    message = AIMessage(content=[{"type": "text", "text": CONTRADICTED + " "},
                                 {"type": "text", "text": next(iter(SUPPORTED))}])
    guarded = guard.invoke({"answer": message, "documents": DOCUMENTS})
    assert guarded.text == next(iter(SUPPORTED))
    assert [d.verdict.outcome for d in guarded.dropped] == ["contradicted"]


def test_batch_guards_each_input(guard):
    results = guard.batch([{"answer": ANSWER, "documents": DOCUMENTS}, {"answer": "", "documents": DOCUMENTS}])
    assert [len(r.sentences) for r in results] == [2, 0]


def test_an_empty_answer_and_no_documents_give_defined_results(guard):
    empty = guard.invoke({"answer": "", "documents": DOCUMENTS})
    assert (empty.sentences, empty.dropped, empty.text) == ((), (), "")
    alone = guard.invoke({"answer": ANSWER, "documents": []})
    assert alone.sentences == ()
    assert {d.verdict.outcome for d in alone.dropped} == {"unsupported"}


def test_a_10_mb_document_is_read_and_the_right_one_still_cited(guard):
    documents = [Document(page_content=HUGE, id="huge"), *DOCUMENTS]
    guarded = guard.invoke({"answer": ANSWER, "documents": documents})
    assert outcomes(guarded).items() >= EXPECTED.items()


def test_lone_surrogates_give_a_defined_result(guard):
    documents = [Document(page_content=PASSAGES["water"] + " \udcff", id="water")]
    guarded = guard.invoke({"answer": WITH_SURROGATES, "documents": documents})
    assert [s.source_id for s in guarded.sentences] == ["water"]
    assert [d.verdict.outcome for d in guarded.dropped] == ["unsupported"]


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ("just text", "the input must be a dict with ('answer', 'documents'), not str"),
        ({"answer": ANSWER}, "the input has no 'documents' (it needs ('answer', 'documents'))"),
        ({"answer": ANSWER.encode("utf-16"), "documents": []},
         "'answer' must be text or a chat message, not bytes"),
        ({"answer": ANSWER, "documents": "water"}, "'documents' must be a list of Document, not str"),
        ({"answer": ANSWER, "documents": [PASSAGES["water"]]}, "documents[0] must be a Document, not str"),
    ],
)
def test_bad_input_is_one_line_error(guard, request_, message):
    with pytest.raises(InputError) as caught:
        guard.invoke(request_)
    assert str(caught.value) == message

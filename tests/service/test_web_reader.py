"""The web reader end to end: a real ``python -m tether serve`` process, headless Chromium.

A new user opens the page, asks a question, sees the sources, then verified
sentences, clicks a citation marker and sees the exact passage highlighted in its
document. Screenshots go to ``artifacts/web-reader/`` (see ``browser.py``).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from generate.fake_llm import FakeLLMServer, Reply, openai_stream, tokens

from tether import Tether

from .browser import FINISHED, require_browser, visit
from .conftest import (
    FINANCE_SOURCE,
    add_key,
    build_acl_store,
    ingest_text,
    serve_process,
)

SECRET_MARKERS = ("osprey", "42 million", "ines varga", "march 2027", "kestrel acquisition memo")


@pytest.fixture(scope="module")
def demo_url(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_browser()  # no server either when the browser tests cannot run
    db = tmp_path_factory.mktemp("reader") / "demo.db"
    shutil.copy(demo_db, db)
    with serve_process(db) as (url, _):
        yield url


def _citation_opens_highlighted(v: Any, button: Any, citation: dict[str, Any]) -> None:
    button.click()
    v.page.wait_for_selector("#docview[data-state=ready]")
    mark = v.page.locator("#doc-highlight")
    assert mark.text_content() == citation["quote"]


def test_sources_then_sentences_then_the_cited_passage_highlighted(browser, demo_url):
    with visit(browser, demo_url) as v:
        page = v.page
        assert page.get_attribute("#answer", "aria-live") == "polite"
        assert page.get_attribute("#status", "role") == "status"
        unlabelled = v.state("Array.from(document.querySelectorAll('input, select, textarea'))"
                             ".filter(e => e.labels.length === 0).map(e => e.id)")
        assert unlabelled == []
        v.ask("What is the flash point of acetone?")
        assert v.finished() == "done"

        # Sources were on screen before the first sentence, by the page's timeline and
        # by an observer of the document that the page does not control.
        timeline = v.state("window.tetherReader.timeline")
        kinds = [t["event"] for t in timeline]
        assert kinds[0] == "sources" and kinds[-1] == "done" and "sentence" in kinds
        assert set(kinds[1:-1]) == {"sentence"}
        assert all(t["sourcesShown"] > 0 for t in timeline if t["event"] == "sentence")
        order = v.state("window.__order")
        assert order.index("sentence") > 0 and set(order[: order.index("sentence")]) == {"source"}
        sources = v.state("window.tetherReader.sources")
        assert page.locator("#sources li[data-source]").count() == len(sources) > 0

        answer = v.state("window.tetherReader.answer")
        assert not answer["refused"] and answer["sentences"]
        shown = [s.strip() for s in page.locator("#answer .sentence").all_inner_texts()]
        assert len(shown) == len(answer["sentences"])
        citation = answer["sentences"][0]["citations"][0]
        marker = page.locator("#answer .sentence").first.locator("button.cite").first
        assert marker.get_attribute("aria-label").startswith("Citation")

        # Keyboard: focus the marker, Enter opens the document, focus moves into it.
        marker.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#docview[data-state=ready]")
        assert v.state("document.activeElement.id") == "doc-title"
        assert page.get_attribute("#docview", "data-resolution") == "exact"
        mark = page.locator("#doc-highlight")
        assert mark.text_content() == citation["quote"]
        assert int(mark.get_attribute("data-start")) == citation["start"]
        assert int(mark.get_attribute("data-end")) == citation["end"]
        # The highlighted range is exactly [start, end) of the stored text.
        text = page.locator("#doc-text").text_content()
        assert text[citation["start"]:citation["end"]] == citation["quote"]
        stored = httpx.get(f"{demo_url}/v1/documents/{citation['doc_id']}").json()["text"]
        assert text == stored
        # Scrolled into view inside the text's own scroller.
        box, frame = mark.bounding_box(), page.locator("#doc-text").bounding_box()
        assert frame["y"] <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"]
        meta = page.locator("#doc-meta").inner_text()
        for shown_fact in (citation["license"], citation["fetched_at"], citation["version"][:19]):
            assert shown_fact in meta
        assert citation["source"] in meta
        v.screenshot("desktop-document")

        page.keyboard.press("Escape")
        page.wait_for_selector("#docview", state="hidden")
        assert v.state("document.activeElement.classList.contains('cite')")
        v.screenshot("desktop-answer", full_page=True)


def test_narrow_screen_is_readable(browser, demo_url):
    with visit(browser, demo_url, width=375, height=812) as v:
        v.ask("How long should an eye be flushed?")
        assert v.finished() == "done"
        assert v.state("document.documentElement.scrollWidth") <= 375
        for selector in ("#question", "#ask-button", "#stop-button", "#answer"):
            box = v.page.locator(selector).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 375, selector
        v.screenshot("narrow-answer", full_page=True)
        citation = v.state("window.tetherReader.answer.sentences[0].citations[0]")
        _citation_opens_highlighted(v, v.page.locator("button.cite").first, citation)
        dialog = v.page.locator("#docview").bounding_box()
        assert dialog["width"] <= 375
        assert v.page.locator("#doc-highlight").is_visible()
        v.screenshot("narrow-document")


def test_a_refusal_is_shown_plainly_with_its_reason_and_layer(browser, demo_url):
    with visit(browser, demo_url) as v:
        v.ask("What is the OASB exposure limit for xylene?")
        assert v.finished() == "refused"
        answer = v.state("window.tetherReader.answer")
        assert answer["refused"] and answer["refusal_layer"] == "guard"
        refusal = v.page.locator(".refusal")
        assert refusal.get_attribute("data-layer") == "guard"
        assert "No answer" in refusal.inner_text()
        assert answer["refusal_reason"][1:] in refusal.locator(".reason").inner_text()
        assert "guard" in refusal.locator(".layer").inner_text()
        assert v.page.locator("#answer .sentence").count() == 0
        assert v.page.locator("#sources li[data-source]").count() > 0  # the sources stay
        v.screenshot("refusal")


def test_shadow_mode_shows_what_would_have_been_suppressed(browser, demo_url):
    with visit(browser, demo_url) as v:
        v.page.click(".options summary")
        v.page.select_option("#mode", "shadow")
        v.ask("What is the OASB exposure limit for xylene?")
        assert v.finished() == "done"
        answer = v.state("window.tetherReader.answer")
        assert not answer["refused"] and set(answer["modes"].values()) == {"shadow"}
        assert any(n.get("would") == "refuse" for n in answer["trace"]["shadow"])
        banner = v.page.locator("#shadow-banner")
        assert banner.is_visible() and "Would have refused" in banner.inner_text()
        sentences = v.page.locator("#answer .sentence")
        assert sentences.count() == len(answer["sentences"]) > 0
        assert sentences.count() == v.page.locator("#answer .sentence.shadow").count()
        assert "would not have been shown" in v.page.locator("#answer").inner_text()
        v.screenshot("shadow")


def test_derived_text_is_attributed_to_its_artifact_and_process_not_quoted(browser, demo_url):
    with visit(browser, demo_url) as v:
        v.ask("What should you do if a colleague collapses in a pit?")
        assert v.finished() == "done"
        answer = v.state("window.tetherReader.answer")
        citation = answer["sentences"][0]["citations"][0]
        assert citation["kind"] == "transcribed"
        marker = v.page.locator("button.cite.derived").first
        assert "transcribed" in marker.get_attribute("aria-label")
        _citation_opens_highlighted(v, marker, citation)
        note = v.page.locator("#doc-derived")
        assert note.is_visible()
        words = note.inner_text()
        assert "not a quotation" in words and citation["process"] in words and citation["source"] in words
        assert "derived" in v.page.get_attribute("#doc-highlight", "class")
        assert v.page.locator("#docview blockquote, #docview q").count() == 0
        v.screenshot("derived-document")


def test_a_moved_changed_or_deleted_passage_says_so(browser, tmp_path):
    db = tmp_path / "docs.db"
    with Tether(db) as tether:
        ingest_text(tether, "https://example.org/methanol", "Methanol",
                    "Methanol boils at 64.7 °C at sea level. Store methanol away from oxidisers.", ("public",))
    with serve_process(db) as (url, _), visit(browser, url) as v, httpx.Client(base_url=url) as api:
        v.ask("What is the boiling point of methanol?")
        assert v.finished() == "done"
        citation = v.state("window.tetherReader.answer.sentences[0].citations[0]")
        marker = v.page.locator("button.cite").first

        def upload(text: str) -> None:
            out = api.post("/v1/documents", json={"source": "https://example.org/methanol",
                                                  "title": "Methanol", "text": text})
            assert out.status_code == 201, out.text

        upload("Revised in March.\n\n" + "Methanol boils at 64.7 °C at sea level. Keep it cool.")
        _citation_opens_highlighted(v, marker, citation)
        assert v.page.get_attribute("#docview", "data-resolution") == "relocated"
        assert "moved" in v.page.locator("#doc-resolution").inner_text()
        start = int(v.page.get_attribute("#doc-highlight", "data-start"))
        assert start == citation["start"] + len("Revised in March.\n\n")
        v.screenshot("relocated-document")
        v.page.keyboard.press("Escape")

        upload("Methanol is a solvent. Its boiling point is listed on the label.")
        marker.click()
        v.page.wait_for_selector("#docview[data-state=ready]")
        assert v.page.get_attribute("#docview", "data-resolution") == "changed"
        resolution = v.page.locator("#doc-resolution").inner_text()
        assert "changed" in resolution and citation["quote"] in resolution
        assert v.page.locator("#doc-highlight").count() == 0
        v.page.keyboard.press("Escape")

        assert api.delete(f"/v1/documents/{citation['doc_id']}").status_code == 204
        marker.click()
        v.page.wait_for_selector("#docview[data-state=ready]")
        assert v.page.get_attribute("#docview", "data-resolution") == "missing"
        assert "not available" in v.page.locator("#doc-resolution").inner_text()
        assert v.page.locator("#doc-text").inner_text() == ""


def test_stop_ends_the_answer_and_keeps_the_sources(browser, tmp_path, monkeypatch):
    db = tmp_path / "stop.db"
    build_acl_store(db, with_hidden=False).close()
    # A model that writes one sentence, starts a second, then waits for the gate.
    text = "Methanol boils at 64.7 °C at sea level. [1] " + "Methanol vapour is heavier than air. [1] " * 30
    frames = openai_stream(tokens(text))
    held_at = next(i for i, f in enumerate(frames) if b'"content":" vap' in f)
    gate = threading.Event()
    reply = Reply(frames=frames, stall_after=held_at, stall=30, gate=gate, gap=0.02)
    # Asked again: one sentence the passage states, one it contradicts.
    wrong = "Methanol boils at 90 °C at sea level."
    second = Reply(frames=openai_stream(tokens(f"Methanol boils at 64.7 °C at sea level. [1] {wrong} [1]")))
    with FakeLLMServer(reply, second) as model:
        monkeypatch.setenv("TETHER_GENERATOR", "openai")
        monkeypatch.setenv("TETHER_GENERATOR_ANSWERS", "free")  # the model writes its own sentences
        monkeypatch.setenv("TETHER_GENERATOR_BASE_URL", model.url + "/v1")
        monkeypatch.setenv("TETHER_GENERATOR_MODEL", "any")
        monkeypatch.setenv("TETHER_GENERATOR_MAX_RETRIES", "0")
        with serve_process(db) as (url, _), visit(browser, url) as v:
            v.ask("What is the boiling point of methanol?")
            v.page.wait_for_selector("#answer .sentence")
            assert v.page.get_attribute("#results", "data-state") == "streaming"
            assert v.page.is_enabled("#stop-button")
            v.page.click("#stop-button")
            assert v.finished() == "stopped"
            assert "Stopped" in v.page.locator("#status").inner_text()
            assert v.page.locator("#sources li[data-source]").count() > 0
            assert v.page.locator("#answer .sentence").count() == 1
            assert "incomplete" in v.page.locator("#outcome").inner_text()
            assert v.state("window.tetherReader.answer") is None
            gate.set()  # the model writes on; the service must have hung up on it
            assert model.aborted.wait(10), "stopping the page did not stop the model"
            assert len(model.frame_times) < len(frames)
            kinds = [t["event"] for t in v.state("window.tetherReader.timeline")]
            assert kinds == ["sources", "sentence"]
            v.screenshot("stopped")

            v.ask("What is the boiling point of methanol?")
            assert v.finished() == "done"
            assert v.page.locator("#answer .sentence").count() == 1
            assert wrong not in v.page.locator("#answer").inner_text()
            dropped = v.page.locator("#dropped")
            assert dropped.is_visible()
            dropped.locator("summary").click()
            item = dropped.locator("li", has_text=wrong)
            assert item.get_attribute("data-outcome") == "contradicted"
            v.screenshot("dropped")
            v.page.click(".options summary")
            v.page.uncheck("#show-dropped")
            assert dropped.is_hidden()


def _text_everywhere(v: Any) -> str:
    """What a person or a script on the page could read: the DOM and the page's state."""
    return (v.page.locator("body").inner_text() + v.page.content()
            + str(v.state("JSON.stringify(window.tetherReader)"))).lower()


def test_api_keys_nothing_from_an_unreadable_document_appears(browser, tmp_path):
    db = tmp_path / "acl.db"
    with build_acl_store(db) as tether:
        finance = add_key(tether, "finance-team", "finance")
        staff = add_key(tether, "staff", "staff")
        secret = next(d for d in tether.store.documents() if d.source == FINANCE_SOURCE)
        secret_version = tether.store.current_version(secret.doc_id)
    with serve_process(db) as (url, _), visit(browser, url) as v:
        page = v.page
        # The panel is already open (the page asked /v1/access on load); the question's
        # 401 keeps the question pending and moves the focus back to the key.
        question = "What is the Kestrel budget?"
        v.ask(question)
        page.wait_for_function("q => window.tetherReader.pending === q", arg=question)
        assert page.locator("#key-panel").is_visible()
        assert v.state("document.activeElement.id") == "key-input"
        assert page.locator("label[for=key-input]").inner_text() == "API key"
        v.screenshot("key-needed")

        page.fill("#key-input", "tk_not_a_key")
        page.press("#key-input", "Enter")  # the pending question is asked with it
        page.wait_for_selector("#key-error:not(:empty)")
        assert "not accept" in page.locator("#key-error").inner_text()

        page.fill("#key-input", staff)
        page.press("#key-input", "Enter")
        assert v.finished() == "refused"
        assert page.locator("#key-panel").is_hidden() and page.locator("#key-status").is_visible()
        seen = _text_everywhere(v)
        for marker in (*SECRET_MARKERS, secret.doc_id.lower(), FINANCE_SOURCE.lower()):
            assert marker not in seen
        # The browser, holding the staff key, cannot read the finance document either.
        status = v.state(
            "fetch('/v1/documents/%s/versions/%s', {headers: {Authorization: 'Bearer %s'}})"
            ".then(r => r.status)" % (secret.doc_id, secret_version, staff))
        assert status == 404
        assert v.state("sessionStorage.length") == 0  # kept in memory unless asked

        page.click("#key-change")
        page.fill("#key-input", finance)
        page.check("#key-remember")
        page.press("#key-input", "Enter")
        assert v.state("document.activeElement.id") == "question"
        v.ask("What is the Kestrel budget?")
        assert v.finished() == "done"
        assert "42 million euros" in page.locator("#answer").inner_text()
        citation = v.state("window.tetherReader.answer.sentences[0].citations[0]")
        _citation_opens_highlighted(v, page.locator("button.cite").first, citation)
        assert v.state("sessionStorage.length") == 1
        page.keyboard.press("Escape")

        page.reload()  # the remembered key survives a reload of this tab
        page.wait_for_selector("html[data-ready=true]", state="attached")
        assert page.locator("#key-status").is_visible()

        page.click("#key-forget")
        assert v.state("sessionStorage.length") == 0
        v.ask("What is the Kestrel budget?")
        page.wait_for_selector("#key-panel", state="visible")
        page.fill("#key-input", staff)
        page.press("#key-input", "Enter")
        assert v.finished() == "refused"
        seen = _text_everywhere(v)
        for marker in (*SECRET_MARKERS, secret.doc_id.lower()):
            assert marker not in seen
        v.screenshot("key-refused")


def test_asking_again_replaces_a_running_answer(browser, demo_url):
    """Enter works while an answer runs; late events of the first answer never leak in."""
    with visit(browser, demo_url) as v:
        v.ask("What is the boiling point of methanol?")
        v.ask("How long should an eye be flushed?")
        assert v.finished() == "done"
        answer = v.state("window.tetherReader.answer")
        assert answer["question"] == "How long should an eye be flushed?"
        kinds = [t["event"] for t in v.state("window.tetherReader.timeline")]
        assert kinds[0] == "sources" and kinds.count("sources") == kinds.count("done") == 1
        assert v.page.locator(FINISHED).count() == 1
        assert "methanol" not in v.page.locator("#answer").inner_text().lower()

// The reader: ask, watch the sources arrive, then each verified sentence, then the
// outcome. POST /v1/answers with stream: true; see sse.js for the event parsing and
// docview.js for opening a citation.
//
// window.tetherReader exposes what happened (the event timeline, the sources, the
// streamed sentences and the final Answer) for diagnostics and end-to-end tests.

import {
  DERIVED_WORDS, KeyNeeded, ProblemError, api, clear, currentKey, el, headingText, hostOf, isDerived,
  keyRemembered, problemText, setKey,
} from "./common.js";
import { DocView } from "./docview.js";
import { readEvents } from "./sse.js";

const $ = (id) => document.getElementById(id);

const state = {
  run: 0,
  controller: null,
  pending: null,
  question: null,
  sources: [],
  sentences: [],
  answer: null,
  timeline: [],
  phase: "idle",
};
window.tetherReader = state;

const LAYERS = {
  retrieval: "Nothing in the documents you can read matches the question.",
  probe: "The retrieval probe judged what was found too weak to answer from, before anything was drafted.",
  generator: "No retrieved passage offered a sentence to propose.",
  guard: "Sentences were drafted, but the citation guard and answer check did not let an answer through.",
};

const OUTCOMES = {
  unsupported: "no retrieved passage states it",
  mentioned: "the passages mention the subject but do not state this",
  contradicted: "a passage says otherwise",
  supported: "supported, but withheld",
};

const docview = new DocView({ onKeyNeeded: (error) => needKey(error) });

// -- phases and status ------------------------------------------------------------------

function setPhase(phase, words) {
  state.phase = phase;
  $("results").dataset.state = phase;
  if (words !== undefined) $("status").textContent = words;
  const running = phase === "retrieving" || phase === "streaming";
  $("stop-button").disabled = !running;
  // Ask stays enabled: asking again replaces a running answer (Enter must keep working).
  $("answer-panel").setAttribute("aria-busy", phase === "retrieving" ? "true" : "false");
}

function mark(kind) {
  state.timeline.push({ event: kind, at: performance.now(), sourcesShown: $("sources").children.length });
}

function clearResults() {
  state.run += 1;
  if (state.controller) state.controller.abort();
  state.controller = null;
  state.sources = [];
  state.sentences = [];
  state.answer = null;
  state.timeline = [];
  for (const id of ["sources", "answer", "outcome", "dropped-list", "shadow-banner"]) clear($(id));
  $("sources-count").textContent = "";
  $("dropped").hidden = true;
  $("shadow-banner").hidden = true;
  $("results").hidden = true;
  docview.reset();
  setPhase("idle", "");
}

// -- asking -----------------------------------------------------------------------------

async function ask(question) {
  clearResults();
  const run = state.run;
  const controller = new AbortController();
  state.controller = controller;
  state.question = question;
  $("results").hidden = false;
  $("answer").append(el("p", { class: "placeholder" }, "Searching the documents…"));
  setPhase("retrieving", "Searching the documents…");
  const body = { question, stream: true };
  const mode = $("mode").value;
  if (mode) body.mode = mode;
  let ended = false;
  try {
    const response = await api("/v1/answers", {
      method: "POST", body, signal: controller.signal, accept: "text/event-stream",
    });
    await readEvents(response, (kind, data) => {
      if (run !== state.run) return; // a newer question took over
      if (kind === "done") ended = true;
      handle(kind, data);
    });
    if (run === state.run && !ended) {
      showNotice("The answer stream ended before the answer was complete. The sentences shown were each verified.");
      setPhase("error", "The answer stream ended early.");
    }
  } catch (error) {
    if (run !== state.run) return;
    if (error && error.name === "AbortError") {
      stopped();
    } else if (error instanceof KeyNeeded) {
      state.pending = question;
      $("results").hidden = true;
      needKey(error);
    } else if (error instanceof ProblemError) {
      clear($("answer"));
      showNotice(`The question could not be answered: ${problemText(error.problem)}`);
      setPhase("error", "The server refused the request.");
    } else {
      showNotice(`The connection to the server broke: ${error.message || error}. The sentences shown were each verified.`);
      setPhase("error", "The connection broke.");
    }
  } finally {
    if (state.controller === controller) state.controller = null;
  }
}

function stopped() {
  const shown = state.sentences.length;
  clear($("outcome"));
  $("outcome").append(el("p", { class: "notice" },
    shown
      ? `Stopped after ${shown} verified sentence${shown === 1 ? "" : "s"}. The answer is incomplete; the sources found are kept.`
      : "Stopped before any sentence was verified. The sources found are kept."));
  const placeholder = $("answer").querySelector(".placeholder");
  if (placeholder) placeholder.remove();
  setPhase("stopped", "Stopped. The sources found are kept.");
}

function showNotice(words) {
  clear($("outcome"));
  $("outcome").append(el("p", { class: "notice error" }, words));
}

function handle(kind, data) {
  mark(kind);
  if (kind === "sources") renderSources(data.passages || []);
  else if (kind === "sentence") appendSentence(data);
  else if (kind === "done") finish(data);
  else if (kind === "error") {
    showNotice(`The answer stopped with an error: ${problemText(data)}. The sentences shown were each verified.`);
    setPhase("error", "The answer stopped with an error.");
  }
}

// -- sources ------------------------------------------------------------------------------

function renderSources(passages) {
  state.sources = passages;
  const list = $("sources");
  clear(list);
  $("sources-count").textContent = `(${passages.length})`;
  if (!passages.length) {
    list.append(el("li", { class: "empty" }, "No passage in the documents you can read matches the question."));
  }
  passages.forEach((p, i) => {
    const n = i + 1;
    const derived = isDerived(p.kind);
    const meta = [hostOf(p.source)];
    if (p.region) meta.push(p.region);
    const open = el("button", {
      type: "button", class: "source-open", "aria-describedby": `source-${n}-excerpt`,
      onclick: (event) => docview.openPassage(p, { opener: event.currentTarget, label: `Source ${n}` }),
    }, p.title || hostOf(p.source));
    list.append(el("li", { class: derived ? "source derived" : "source", id: `source-${n}`, dataset: { source: String(n) } },
      el("span", { class: "num", "aria-hidden": "true" }, String(n)),
      el("div", { class: "source-body" },
        open,
        p.heading && p.heading.length ? el("p", { class: "source-heading" }, headingText(p.heading)) : null,
        el("p", { class: "source-meta" }, meta.join(" · "),
          derived ? el("span", { class: "badge derived" }, DERIVED_WORDS[p.kind] || p.kind) : null,
          p.flags && p.flags.length ? el("span", { class: "badge flag", title: p.flags.join(", ") }, "instruction-like text flagged") : null),
        el("p", { class: "source-excerpt", id: `source-${n}-excerpt` }, p.text),
        p.also && p.also.length ? el("p", { class: "source-also" }, `Also in: ${p.also.map(hostOf).join(", ")}`) : null)));
  });
  const placeholder = $("answer").querySelector(".placeholder");
  if (placeholder) placeholder.textContent = passages.length ? "Verifying sentences against these sources…" : "Nothing to answer from.";
  setPhase("streaming", passages.length
    ? `${passages.length} source${passages.length === 1 ? "" : "s"} found. Verifying sentences…`
    : "No sources found.");
}

// The source a citation rests on: same document and version, overlapping range.
function sourceNumber(citation) {
  const overlaps = state.sources.findIndex((p) => p.doc_id === citation.doc_id && p.version === citation.version
    && p.start < citation.end && citation.start < p.end);
  if (overlaps !== -1) return overlaps + 1;
  const sameDoc = state.sources.findIndex((p) => p.doc_id === citation.doc_id);
  return sameDoc === -1 ? null : sameDoc + 1;
}

// -- sentences ------------------------------------------------------------------------------

function answerParagraph() {
  const box = $("answer");
  const placeholder = box.querySelector(".placeholder");
  if (placeholder) placeholder.remove();
  let para = box.querySelector("p.answer-para");
  if (!para) {
    para = el("p", { class: "answer-para" });
    box.append(para);
  }
  return para;
}

function citeButton(citation, n) {
  const derived = isDerived(citation.kind);
  const label = n === null ? "•" : String(n);
  const heading = citation.heading && citation.heading.length ? `, ${headingText(citation.heading)}` : "";
  const where = (citation.title || hostOf(citation.source)) + heading;
  const spoken = `Citation ${n === null ? "" : n + " "}(${where}${derived ? `, ${citation.kind} text` : ""}): open the passage`;
  return el("button", {
    type: "button", class: derived ? "cite derived" : "cite", "aria-label": spoken, title: spoken,
    dataset: { doc: citation.doc_id, start: String(citation.start), end: String(citation.end) },
    onclick: (event) => docview.openCitation(citation, { opener: event.currentTarget, label: `Citation ${label}` }),
  }, label);
}

// A sentence as a person reads it, as the command line shows it: a table row quoted as
// extraction wrote it ("| Default: | KeepAliveTimeout 5 |") as its cells, a heading
// that states its term's value without its "###". The citation keeps the exact quote.
function shownText(text) {
  const line = text.trim().replace(/^#{1,6}[ \t]+/, "");
  if (!/^\|[^\n]*\|$/.test(line)) return line === text.trim() ? text : line;
  return line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll("\\|", "|")).filter(Boolean).join(" ");
}

function appendSentence(sentence) {
  const index = state.sentences.length;
  state.sentences.push(sentence);
  answerParagraph().append(sentenceNode(sentence, index), " ");
  const n = state.sentences.length;
  $("status").textContent = `${n} verified sentence${n === 1 ? "" : "s"} so far…`;
}

function sentenceNode(sentence, index) {
  const numbers = [];
  const buttons = sentence.citations.map((citation) => {
    const n = sourceNumber(citation);
    if (n !== null) {
      numbers.push(n);
      const card = $(`source-${n}`);
      if (card) card.classList.add("cited");
    }
    return citeButton(citation, n);
  });
  return el("span", { class: "sentence", dataset: { sentence: String(index) } },
    shownText(sentence.text), " ", el("span", { class: "cites" }, buttons));
}

// -- the outcome ------------------------------------------------------------------------------

function finish(answer) {
  state.answer = answer;
  const box = $("outcome");
  clear(box);
  const same = answer.sentences.length === state.sentences.length
    && answer.sentences.every((s, i) => s.text === state.sentences[i].text);
  if (answer.refused) {
    clear($("answer"));
    if (state.sentences.length) {
      box.append(el("p", { class: "notice" },
        `${state.sentences.length} verified sentence${state.sentences.length === 1 ? " was" : "s were"} withdrawn: the answer as a whole did not pass.`));
    }
    const layer = answer.refusal_layer || "unknown";
    box.append(el("div", { class: "refusal", dataset: { layer } },
      el("h3", {}, "No answer"),
      el("p", { class: "reason" }, capitalise(answer.refusal_reason || "no reason was given")),
      el("p", { class: "layer" }, "Refused at the ", el("strong", {}, layer), " layer. ", LAYERS[layer] || "")));
  } else if (!same) {
    // What was streamed must be what was verified; if not, show the final Answer.
    clear($("answer"));
    state.sentences = [];
    answer.sentences.forEach((s) => appendSentence(s));
  }
  renderShadow(answer);
  renderDropped(answer);
  if (!answer.refused) {
    const n = answer.sentences.length;
    const cited = new Set(answer.sentences.flatMap((s) => s.citations.map((c) => c.doc_id))).size;
    box.append(el("p", { class: "verified" },
      el("span", { class: "tick", "aria-hidden": "true" }, "✓"),
      ` ${n} sentence${n === 1 ? "" : "s"}, each verified against the passage it cites (${cited} document${cited === 1 ? "" : "s"}).`));
  }
  box.append(el("p", { class: "trace" }, `Trace ${answer.trace_id}`));
  setPhase(answer.refused ? "refused" : "done", answer.refused
    ? `Finished: no answer (refused at the ${answer.refusal_layer || "unknown"} layer).`
    : `Finished: ${answer.sentences.length} verified sentence${answer.sentences.length === 1 ? "" : "s"}.`);
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// In shadow mode, what the gates would have suppressed is shown, marked as such.
function renderShadow(answer) {
  const notes = (answer.trace && answer.trace.shadow) || [];
  const banner = $("shadow-banner");
  clear(banner);
  const modes = Object.entries(answer.modes || {}).filter(([, m]) => m === "shadow").map(([g]) => g);
  if (!notes.length && !modes.length) {
    banner.hidden = true;
    return;
  }
  banner.append(el("p", { class: "shadow-title" }, `Shadow mode (${modes.join(", ") || "some gates"})`));
  if (!notes.length) {
    banner.append(el("p", {}, "The gates in shadow would not have changed this answer."));
  }
  const refusals = notes.filter((n) => n.would === "refuse");
  for (const note of refusals) {
    banner.append(el("p", {}, "Would have refused the whole answer at the ", el("strong", {}, note.layer),
      ` layer: ${note.reason}. Everything below would not have been shown.`));
  }
  const para = $("answer").querySelector("p.answer-para");
  if (refusals.length && para) {
    para.classList.add("shadow-all");
    para.prepend(el("span", { class: "shadow-tag" }, "would not have been shown"), " ");
  }
  for (const node of $("answer").querySelectorAll(".sentence")) {
    const sentence = state.sentences[Number(node.dataset.sentence)];
    const note = notes.find((n) => n.sentence && sentence && n.sentence === sentence.text);
    if (!refusals.length && !note) continue;
    node.classList.add("shadow");
    if (note) {
      const why = `would be dropped as ${note.would_be}${note.reasons ? ` (${note.reasons})` : ""}`;
      node.querySelector(".cites").before(el("span", { class: "shadow-tag" }, why), " ");
    }
  }
  for (const note of notes.filter((n) => n.sentence)) {
    if (state.sentences.some((s) => s.text === note.sentence)) continue;
    banner.append(el("p", {}, `A sentence would be dropped as ${note.would_be}: “${note.sentence}”`));
  }
  banner.hidden = false;
}

function renderDropped(answer) {
  const list = $("dropped-list");
  clear(list);
  const dropped = answer.dropped || [];
  $("dropped").hidden = !dropped.length || !$("show-dropped").checked;
  $("dropped-summary").textContent = `Dropped sentences (${dropped.length})`;
  for (const d of dropped) {
    const outcome = d.verdict.outcome;
    list.append(el("li", { dataset: { outcome } },
      el("span", { class: "dropped-text" }, d.text),
      el("span", { class: "dropped-why" },
        el("span", { class: `badge ${outcome}` }, outcome), " ", d.reason || OUTCOMES[outcome] || "",
        d.verdict.reasons && d.verdict.reasons.length ? ` (${d.verdict.reasons.join("; ")})` : "")));
  }
}

// -- the API key ------------------------------------------------------------------------------

function needKey(error) {
  const panel = $("key-panel");
  panel.hidden = false;
  $("key-error").textContent = error.hadKey
    ? `The server did not accept this key: ${error.problem.detail || "unknown or revoked"}.`
    : "";
  if (error.hadKey) setKey(null);
  showKeyStatus();
  setPhase("idle", "This server needs an API key.");
  $("key-input").value = "";
  $("key-input").focus();
}

function showKeyStatus() {
  const key = currentKey();
  $("key-status").hidden = !key;
  $("key-label").textContent = key ? (keyRemembered() ? "API key in use (kept for this tab)" : "API key in use") : "";
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("key-input").value.trim();
  if (!key) return;
  // A different key may read different documents: nothing read with the old one stays.
  clearResults();
  setKey(key, { remember: $("key-remember").checked });
  $("key-input").value = "";
  $("key-error").textContent = "";
  $("key-panel").hidden = true;
  showKeyStatus();
  const pending = state.pending;
  state.pending = null;
  $("question").focus();
  if (pending) {
    $("question").value = pending;
    ask(pending);
  } else {
    $("status").textContent = "Key saved. Ask a question.";
  }
});

$("key-change").addEventListener("click", () => {
  $("key-panel").hidden = false;
  $("key-error").textContent = "";
  $("key-input").focus();
});

$("key-forget").addEventListener("click", () => {
  clearResults();
  setKey(null);
  showKeyStatus();
  $("status").textContent = "Key forgotten; the results read with it were cleared.";
  $("question").focus();
});

// -- the form ------------------------------------------------------------------------------

$("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const question = $("question").value.trim();
  if (!question) {
    $("status").textContent = "Type a question first.";
    $("question").focus();
    return;
  }
  ask(question);
});

$("stop-button").addEventListener("click", () => {
  if (state.controller) state.controller.abort();
  $("question").focus();
});

$("show-dropped").addEventListener("change", () => {
  if (state.answer) renderDropped(state.answer);
});

// When the server needs a key, ask for it before the first question, not after it fails.
async function askForKeyFirst() {
  if (currentKey()) return;
  try {
    const response = await fetch("/v1/access", { credentials: "omit", cache: "no-store" });
    if (!response.ok) return; // a server without /v1/access: the first 401 asks instead
    const access = await response.json();
    if (access && access.key_required === true && !currentKey()) {
      needKey({ hadKey: false, problem: {} });
    }
  } catch (_) {
    // unreachable now: the first question says so
  }
}

showKeyStatus();
askForKeyFirst().finally(() => {
  document.documentElement.dataset.ready = "true";
});

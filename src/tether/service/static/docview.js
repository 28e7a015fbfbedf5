// The document view: a citation (or a source) opened in its stored document, the
// cited range highlighted exactly and scrolled into view.
//
// A citation is resolved first (POST /v1/citations/resolve): the document may have a
// newer version (relocated), no longer hold the quote (changed) or be gone (missing),
// and the view says so. The text is then fetched from the version the resolution
// points at and built from three text nodes — before, [start, end), after — so the
// highlighted characters are exactly the range, and document text is never parsed
// as HTML.

import {
  DERIVED_WORDS, KeyNeeded, ProblemError, api, clear, el, headingText, hostOf, isDerived, problemText,
  sourceNode,
} from "./common.js";
import { PageView } from "./pageview.js";

const $ = (id) => document.getElementById(id);

const STATUS_WORDS = {
  exact: "✓ Resolves exactly: the cited version is current and holds the quote.",
  relocated: "This passage moved. The document has changed since the answer was given; the quoted text is highlighted where it is now.",
  changed: "This passage changed. The current version of the document no longer contains the quoted text.",
  missing: "This document is not available: it was deleted, or it is not readable with the current key.",
};

export class DocView {
  constructor({ onKeyNeeded }) {
    this.dialog = $("docview");
    this.onKeyNeeded = onKeyNeeded;
    this.opener = null;
    this.controller = null;
    this.mark = null;
    this.pages = new PageView(this.dialog);
    $("doc-close").addEventListener("click", () => this.close());
    $("doc-jump").addEventListener("click", () => this.showMark());
    this.dialog.addEventListener("close", () => this.closed());
    // A click on the backdrop (the dialog element itself, outside its content) closes.
    this.dialog.addEventListener("click", (event) => {
      if (event.target === this.dialog) this.close();
    });
  }

  get isOpen() {
    return this.dialog.open;
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  closed() {
    if (this.controller) this.controller.abort();
    this.controller = null;
    const opener = this.opener;
    this.opener = null;
    if (opener && opener.isConnected) opener.focus();
  }

  // Forget everything shown (the key changed: the text may not be readable any more).
  reset() {
    this.close();
    for (const id of ["doc-sub", "doc-resolution", "doc-derived", "doc-meta", "doc-text"]) clear($(id));
    this.pages.reset();
  }

  begin(opener, eyebrow, title) {
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    this.opener = opener;
    this.mark = null;
    $("doc-eyebrow").textContent = eyebrow;
    $("doc-title").textContent = title || "Untitled document";
    for (const id of ["doc-sub", "doc-resolution", "doc-meta", "doc-text", "doc-derived"]) clear($(id));
    $("doc-derived").hidden = true;
    $("doc-jump").hidden = true;
    this.pages.reset();
    $("doc-text-label").textContent = "Document text";
    this.dialog.dataset.state = "loading";
    this.dialog.dataset.resolution = "";
    if (!this.dialog.open) this.dialog.showModal();
    $("doc-title").focus();
    return this.controller.signal;
  }

  // Open a citation: resolve it, then show the version the resolution points at.
  async openCitation(citation, { opener, label }) {
    const signal = this.begin(opener, label, citation.title);
    this.status("Checking the citation against the current documents…", "pending");
    try {
      let resolution = null;
      const response = await api("/v1/citations/resolve", {
        method: "POST", body: citation, signal, ok: [501],
      });
      if (response.status !== 501) resolution = await response.json();
      if (signal.aborted) return;
      await this.showCitation(citation, resolution, signal);
    } catch (error) {
      this.failed(error, signal);
    }
  }

  // Open a retrieved passage (a source card): its own range in its own version.
  async openPassage(passage, { opener, label }) {
    const signal = this.begin(opener, label, passage.title);
    this.status("Loading the document…", "pending");
    try {
      const doc = await this.fetchVersion(passage.doc_id, passage.version, signal);
      if (signal.aborted) return;
      if (!doc) {
        this.status(STATUS_WORDS.missing, "missing");
        return;
      }
      this.status("The retrieved passage is highlighted.", "exact");
      this.render(doc, {
        start: passage.start, end: passage.end, expected: passage.text,
        kind: passage.kind, process: passage.process, region: passage.region, heading: passage.heading,
      });
    } catch (error) {
      this.failed(error, signal);
    }
  }

  async showCitation(citation, resolution, signal) {
    const status = resolution ? resolution.status : "unchecked";
    this.dialog.dataset.resolution = status;
    if (status === "missing") {
      this.status(STATUS_WORDS.missing, "missing", citation);
      this.metaFromCitation(citation);
      this.dialog.dataset.state = "ready";
      return;
    }
    const version = resolution ? resolution.version : citation.version;
    const doc = await this.fetchVersion(citation.doc_id, version, signal);
    if (signal.aborted) return;
    if (!doc) {
      this.dialog.dataset.resolution = "missing";
      this.status(STATUS_WORDS.missing, "missing", citation);
      this.metaFromCitation(citation);
      this.dialog.dataset.state = "ready";
      return;
    }
    const words = resolution
      ? STATUS_WORDS[status] || resolution.note
      : "Citation resolution is not available on this server; showing the cited version as stored.";
    this.status(words, status, status === "exact" ? null : citation, resolution && resolution.note);
    if (status === "changed") {
      this.render(doc, { kind: resolution.kind || citation.kind, process: resolution.process || citation.process });
      return;
    }
    const range = resolution
      ? { start: resolution.start, end: resolution.end, expected: resolution.quote }
      : { start: citation.start, end: citation.end, expected: citation.quote };
    const kind = (resolution && resolution.kind) || citation.kind;
    const process = (resolution && resolution.process) || citation.process;
    const region = (resolution && resolution.region) || citation.region;
    const heading = (resolution && resolution.heading && resolution.heading.length) ? resolution.heading : citation.heading;
    this.render(doc, { ...range, kind, process, region, heading });
  }

  async fetchVersion(docId, version, signal) {
    const path = `/v1/documents/${encodeURIComponent(docId)}/versions/${encodeURIComponent(version)}`;
    const response = await api(path, { signal, ok: [404] });
    if (response.status === 404) return null;
    return response.json();
  }

  failed(error, signal) {
    if (signal.aborted || (error && error.name === "AbortError")) return;
    if (error instanceof KeyNeeded) {
      this.close();
      this.onKeyNeeded(error);
      return;
    }
    const words = error instanceof ProblemError ? problemText(error.problem) : String(error.message || error);
    this.status(`The document could not be opened: ${words}`, "error");
    this.dialog.dataset.state = "error";
  }

  status(words, status, cited = null, note = null) {
    const box = $("doc-resolution");
    clear(box);
    box.className = `resolution ${status}`;
    box.append(el("p", { class: "resolution-words" }, words));
    if (note && status !== "exact") box.append(el("p", { class: "resolution-note" }, `Detail: ${note}.`));
    if (cited && cited.quote) {
      // What the answer cited, as it was given: the user already holds this text.
      const derived = isDerived(cited.kind);
      box.append(el("p", { class: "cited-label" }, derived ? "The text as cited (derived, not a quotation):" : "The quote as cited:"));
      box.append(derived
        ? el("p", { class: "cited-text derived" }, cited.quote)
        : el("blockquote", { class: "cited-text" }, cited.quote));
    }
  }

  metaFromCitation(citation) {
    this.subline(citation.source || citation.doc_id, citation.fetched_at);
    this.meta([
      ["Source", sourceNode(citation.source || citation.doc_id)],
      ["License", citation.license || "unknown"],
      ["Fetched", citation.fetched_at || "unknown"],
      ["Version cited", shortVersion(citation.version)],
    ]);
  }

  // Provenance in one line under the title, in view wherever the text is scrolled.
  subline(source, fetched) {
    const line = $("doc-sub");
    clear(line);
    line.append(hostOf(source), ` · fetched ${fetched || "on an unknown date"}`);
  }

  meta(rows) {
    const list = $("doc-meta");
    clear(list);
    for (const [name, value] of rows) {
      if (value === null || value === undefined || value === "") continue;
      list.append(el("div", { class: "meta-row" }, el("dt", {}, name), el("dd", {}, value)));
    }
  }

  // doc: the version JSON; at: {start, end, expected, kind, process, region, heading} (no start: no highlight).
  render(doc, at) {
    const kind = at.kind || doc.kind;
    const process = at.process || doc.process;
    const derived = isDerived(kind);
    $("doc-title").textContent = doc.title || "Untitled document";
    this.subline(doc.source, doc.fetched_at);
    const versionNode = el("span", {},
      el("code", { title: doc.version }, shortVersion(doc.version)),
      doc.current ? " (current)" : " (an older version; the document has a newer one)");
    const rows = [
      ["Source", sourceNode(doc.source)],
      ["License", doc.license],
      ["Fetched", doc.fetched_at],
      ["Version", versionNode],
      ["Extracted by", doc.extractor],
    ];
    if (at.region) rows.push(["Region", at.region]);
    if (at.heading && at.heading.length) rows.push(["Section", headingText(at.heading)]);
    if (at.start !== undefined) rows.push(["Characters", `${at.start}–${at.end}`]);
    if (!derived) rows.push(["Text", "original"]);
    this.meta(rows);

    if (derived) {
      // Derived text is attributed to the artifact and the process, never quoted.
      const note = $("doc-derived");
      clear(note);
      note.append(
        el("p", { class: "derived-title" }, `${DERIVED_WORDS[kind] || "Derived text"}: not a quotation of the source`),
        el("p", {}, "This text was produced from the original artifact by a process; what it says may differ from the artifact itself."),
        el("dl", { class: "derived-facts" },
          el("div", {}, el("dt", {}, "Artifact"), el("dd", {}, sourceNode(doc.source))),
          el("div", {}, el("dt", {}, "Process"), el("dd", {}, process || "not recorded")),
          at.region ? el("div", {}, el("dt", {}, "Region"), el("dd", {}, at.region)) : null),
      );
      note.hidden = false;
    }

    const box = $("doc-text");
    clear(box);
    const text = doc.text;
    if (at.start === undefined || at.start === null) {
      box.append(document.createTextNode(text));
      $("doc-text-label").textContent = "Current document text";
      this.dialog.dataset.state = "ready";
      return;
    }
    const slice = text.slice(at.start, at.end);
    this.mark = el("mark", {
      class: derived ? "hl derived" : "hl",
      id: "doc-highlight",
      tabindex: "-1",
      dataset: { start: String(at.start), end: String(at.end), kind },
    }, slice);
    box.append(document.createTextNode(text.slice(0, at.start)), this.mark,
      document.createTextNode(text.slice(at.end)));
    if (at.expected !== undefined && at.expected !== null && slice !== at.expected) {
      $("doc-resolution").append(el("p", { class: "mismatch" },
        "Warning: the stored text at this range differs from the quote."));
    }
    $("doc-text-label").textContent = derived ? `Document text (${kind}), cited range marked` : "Document text, cited range highlighted";
    $("doc-jump").hidden = false;
    this.dialog.dataset.state = "ready";
    this.showMark();
    // The original page beside the text, for a PDF (after the text: it may take a moment).
    if (this.controller) this.pages.show(doc, { ...at, kind }, this.controller.signal);
  }

  showMark() {
    if (!this.mark) return;
    this.mark.scrollIntoView({ block: "center", behavior: "instant" });
  }
}

function shortVersion(version) {
  if (!version) return "unknown";
  const [algo, hash] = String(version).split(":");
  return hash ? `${algo}:${hash.slice(0, 12)}…` : String(version);
}

// The original page beside the text: for a PDF, the page a citation comes from,
// rendered by the server, with the cited characters boxed where they are drawn.
//
// GET …/pages/{n}?start=&end= says where the range is drawn (boxes as fractions of
// the page); the image itself is fetched with the same key (an <img src> could not
// send it) and shown as a data: URL, which the page's CSP allows. Boxes are placed
// in percent over the image, so they stay on the glyphs at any width. Derived text
// (transcribed, generated) is boxed the same way, as the region it came from.

import { api, clear, el, isDerived, problemOf, problemText } from "./common.js";

const $ = (id) => document.getElementById(id);
const PAGE_LABEL = /^page (\d+)$/;

// The page holding `at` in a PDF version, from the citation's region or the version's regions.
export function pageOf(doc, at) {
  if (!String(doc.media_type || "").startsWith("application/pdf")) return null;
  const named = PAGE_LABEL.exec(at.region || "");
  if (named) return Number(named[1]);
  if (at.start === undefined || at.start === null) return null;
  const region = (doc.regions || []).find((r) => at.start >= r.start && at.start < r.end);
  const found = region && PAGE_LABEL.exec(region.label);
  return found ? Number(found[1]) : null;
}

function dataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

export class PageView {
  constructor(dialog) {
    this.dialog = dialog;
    this.figure = $("doc-page");
    this.first = null;
    $("doc-page-jump").addEventListener("click", () => this.showBox());
  }

  reset() {
    this.first = null;
    this.dialog.dataset.page = "none";
    this.figure.hidden = true;
    this.figure.dataset.state = "";
    clear($("doc-page-frame"));
    clear($("doc-page-note"));
    $("doc-page-jump").hidden = true;
  }

  note(words) {
    const box = $("doc-page-note");
    clear(box);
    box.append(words);
  }

  // doc: the version JSON; at: the range shown in the text ({start, end, kind, region}).
  async show(doc, at, signal) {
    this.reset();
    const page = pageOf(doc, at);
    if (!page) return;
    const derived = isDerived(at.kind || doc.kind);
    this.dialog.dataset.page = "shown";
    this.figure.hidden = false;
    this.figure.dataset.state = "loading";
    $("doc-page-label").textContent = derived
      ? `Original page ${page}: the region this ${at.kind || doc.kind} text comes from`
      : `Original page ${page}, cited words boxed`;
    this.note("Rendering the page…");
    try {
      const base = `/v1/documents/${encodeURIComponent(doc.doc_id)}/versions/${encodeURIComponent(doc.version)}/pages/${page}`;
      const range = at.start === undefined || at.start === null ? "" : `?start=${at.start}&end=${at.end}`;
      const response = await api(base + range, { signal, ok: [404, 409] });
      if (!response.ok) {
        this.unavailable(problemText(await problemOf(response)));
        return;
      }
      const info = await response.json();
      const image = await api(info.image.url, { signal, accept: "image/png" });
      const src = await dataUrl(await image.blob());
      if (signal.aborted) return;
      await this.draw(info, src, derived);
    } catch (error) {
      if (signal.aborted || (error && error.name === "AbortError")) return;
      this.unavailable(error && error.problem ? problemText(error.problem) : String(error.message || error));
    }
  }

  unavailable(words) {
    this.figure.dataset.state = "unavailable";
    this.note(`The original page is not available: ${words}`);
  }

  async draw(info, src, derived) {
    const frame = $("doc-page-frame");
    const img = el("img", {
      id: "doc-page-img", src, width: Math.round(info.width_pt * info.image.scale),
      height: Math.round(info.height_pt * info.image.scale),
      alt: `Page ${info.page} of ${info.pages} of the original document`,
    });
    frame.append(img);
    await img.decode().catch(() => null);
    info.boxes.forEach((box, index) => {
      const mark = el("div", {
        class: derived ? "page-hl derived" : "page-hl",
        dataset: { box: String(index) },
        "aria-hidden": "true",
      });
      // CSSOM, not a style attribute: the CSP forbids inline styles, not this.
      mark.style.left = `${box.x * 100}%`;
      mark.style.top = `${box.y * 100}%`;
      mark.style.width = `${box.width * 100}%`;
      mark.style.height = `${box.height * 100}%`;
      frame.append(mark);
    });
    this.first = frame.querySelector(".page-hl");
    this.figure.dataset.state = "ready";
    this.figure.dataset.aligned = String(info.aligned);
    this.figure.dataset.page = String(info.page);
    if (info.range && !info.aligned) {
      this.note("The cited characters could not be located on this page; the page is the region they come from.");
    } else if (info.range) {
      this.note(`Page ${info.page} of ${info.pages}. ${derived ? "Dashed boxes: the region the derived text comes from." : "Boxed: the cited characters, where the page draws them."}`);
    } else {
      this.note(`Page ${info.page} of ${info.pages}.`);
    }
    $("doc-page-jump").hidden = !this.first;
    // Side by side, the page scrolls on its own; stacked (narrow), it sits below the
    // text, and scrolling to it would take the text's highlight out of view.
    if (window.matchMedia("(min-width: 761px)").matches) this.showBox();
  }

  showBox() {
    if (this.first) this.first.scrollIntoView({ block: "center", behavior: "instant" });
  }
}

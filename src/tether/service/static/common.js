// Helpers shared by the reader's modules: building DOM from untrusted text, the API
// key, and requests to this server.
//
// Every string that comes from a document (titles, passages, sources) is untrusted:
// it only ever reaches the page as a text node (el() children, textContent), never
// as HTML.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Where a passage stands in its document (outermost first), as one line of text.
export function headingText(heading) {
  return (heading || []).join(" › ");
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
}

// A link only for web addresses: a source could be "javascript:…", or a file path.
export function sourceNode(source) {
  try {
    const url = new URL(source);
    if (url.protocol === "https:" || url.protocol === "http:") {
      return el("a", { href: url.href, rel: "noopener noreferrer", target: "_blank" }, source);
    }
  } catch (_) {
    // not a URL: a path or a name, shown as text
  }
  return el("span", { class: "plain-source" }, source);
}

export function hostOf(source) {
  try {
    const url = new URL(source);
    if (url.protocol === "https:" || url.protocol === "http:") return url.host;
  } catch (_) {
    // fall through
  }
  const parts = String(source).split(/[\\/]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : String(source);
}

export const DERIVED_WORDS = {
  transcribed: "Transcribed text",
  generated: "Generated text",
};

export function isDerived(kind) {
  return Boolean(kind) && kind !== "original";
}

// -- the API key: in memory, and in sessionStorage only when the user asks ------------

const KEY_SLOT = "tether.apiKey";
let apiKey = null;
try {
  apiKey = window.sessionStorage.getItem(KEY_SLOT);
} catch (_) {
  apiKey = null; // storage may be disabled; memory is enough
}

export function currentKey() {
  return apiKey;
}

export function setKey(key, { remember = false } = {}) {
  apiKey = key || null;
  try {
    if (apiKey && remember) window.sessionStorage.setItem(KEY_SLOT, apiKey);
    else window.sessionStorage.removeItem(KEY_SLOT);
  } catch (_) {
    // storage disabled: the key lives in memory only
  }
}

export function keyRemembered() {
  try {
    return window.sessionStorage.getItem(KEY_SLOT) !== null;
  } catch (_) {
    return false;
  }
}

export class KeyNeeded extends Error {
  constructor(problem, hadKey) {
    super(problem.detail || "an API key is needed");
    this.problem = problem;
    this.hadKey = hadKey;
  }
}

export class ProblemError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || "request failed");
    this.problem = problem;
  }
}

export async function problemOf(response) {
  try {
    const body = await response.json();
    if (body && typeof body === "object") {
      return { status: response.status, ...body };
    }
  } catch (_) {
    // not JSON
  }
  return { status: response.status, title: response.statusText, detail: `HTTP ${response.status}` };
}

// fetch() against this server with the key; a 401 becomes KeyNeeded, another
// error status ProblemError (unless allowed in `ok`).
export async function api(path, { method = "GET", body, signal, accept = "application/json", ok = [] } = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  // Marks a write as this page's own: a page on another site cannot send this header
  // without a preflight the server never approves (SECURITY.md, cross-site rules).
  if (method !== "GET" && method !== "HEAD") headers["X-Tether-Request"] = "1";
  const key = apiKey;
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    credentials: "omit",
    cache: "no-store",
  });
  if (response.status === 401) throw new KeyNeeded(await problemOf(response), Boolean(key));
  if (!response.ok && !ok.includes(response.status)) throw new ProblemError(await problemOf(response));
  return response;
}

export function problemText(problem) {
  const parts = [problem.detail || problem.title || "the request failed"];
  if (problem.hint) parts.push(`(${problem.hint})`);
  return parts.join(" ");
}

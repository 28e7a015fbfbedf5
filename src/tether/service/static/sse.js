// Server-sent events read from a fetch() body. EventSource cannot POST, and an
// answer is asked with a POST body, so the page parses the stream itself.
//
// readEvents(response, onEvent) calls onEvent(kind, data) for each complete event,
// in order, as soon as its blank line arrives; data is parsed JSON. It resolves when
// the body ends and rejects when the fetch is aborted (AbortError) or the body breaks.

export function parseFrame(frame) {
  let kind = "message";
  const data = [];
  for (const line of frame.split("\n")) {
    if (line === "" || line.startsWith(":")) continue; // comments keep proxies awake
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") kind = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  return { kind, data: JSON.parse(data.join("\n")) };
}

export async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    // CRLF and CR end lines too; a CR at the end may be half of a CRLF still coming.
    const held = buffer.endsWith("\r") ? "\r" : "";
    buffer = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseFrame(frame);
      if (event) onEvent(event.kind, event.data);
    }
    buffer += held;
  }
  buffer = (buffer + decoder.decode()).replace(/\r\n?/g, "\n");
  const last = buffer.trim() ? parseFrame(buffer) : null;
  if (last) onEvent(last.kind, last.data);
}

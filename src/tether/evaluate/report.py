"""The evaluation as one self-contained HTML file: inline CSS, inline SVG, no scripts,
no fonts, images or styles fetched from anywhere.

Top to bottom: whether the invariants held, the headline rates with their counts, the
plots (score distributions by answerability with the probe threshold, outcome mix,
latency), injection detection when the corpus is labelled, the questions that went
wrong, and every question with its answer, citations, refusal and dropped sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .runner import EvalResult
from .svg import histogram, stacked_bars, strip_plot

__all__ = ["render_html"]

GREEN, RED, ORANGE, TEAL, GREY, PURPLE, BLUE = (
    "#2e7d32", "#c62828", "#ef6c00", "#00897b", "#9aa5b1", "#7b1fa2", "#3b6ea8",
)

CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f5f7fa; color: #1f2933; line-height: 1.45;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 12px; }
.sub { color: #5f6b7a; margin: 0 0 18px; }
.banner { border-radius: 10px; padding: 14px 18px; font-weight: 600; margin: 16px 0 8px; }
.banner.ok { background: #e8f5e9; color: #1b5e20; border: 1px solid #a5d6a7; }
.banner.bad { background: #ffebee; color: #b71c1c; border: 1px solid #ef9a9a; }
.banner ul { margin: 6px 0 0 18px; padding: 0; font-weight: 500; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 12px; }
.card { background: #fff; border: 1px solid #e3e7ec; border-radius: 10px; padding: 12px 14px; }
.card .name { font-size: 13px; color: #5f6b7a; font-weight: 600; text-transform: uppercase;
              letter-spacing: .03em; }
.card .value { font-size: 28px; font-weight: 700; margin: 2px 0; }
.card .count { font-size: 13px; color: #5f6b7a; }
.card .bar { height: 6px; background: #e3e7ec; border-radius: 3px; margin: 8px 0 6px; overflow: hidden; }
.card .bar span { display: block; height: 100%; background: #3b6ea8; }
.card.inv .bar span { background: #2e7d32; }
.card.fail { border-color: #ef9a9a; background: #fff8f8; }
.card.fail .value { color: #c62828; }
.card.fail .bar span { background: #c62828; }
.card .def { font-size: 12px; color: #7b8794; margin-top: 4px; }
.plots { display: grid; grid-template-columns: 1fr; gap: 14px; }
.plot { background: #fff; border: 1px solid #e3e7ec; border-radius: 10px; padding: 14px 16px; }
.plot h3 { margin: 0 0 2px; font-size: 16px; }
.plot p { margin: 0 0 8px; color: #5f6b7a; font-size: 13px; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: 14px; }
th, td { border-bottom: 1px solid #e3e7ec; padding: 8px 10px; text-align: left; vertical-align: top; }
th { background: #eef2f6; font-size: 12px; text-transform: uppercase; letter-spacing: .03em;
     color: #52606d; position: sticky; top: 0; }
tr.wrong td { background: #fffaf3; }
tr.broken td { background: #fff1f1; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px;
         font-weight: 600; color: #fff; white-space: nowrap; }
.q { font-weight: 600; }
.id { color: #7b8794; font-size: 12px; font-family: ui-monospace, monospace; }
.sent { margin: 0 0 4px; }
.cite { font-size: 11px; font-weight: 700; color: #3b6ea8; vertical-align: super; }
details { margin-top: 4px; }
summary { cursor: pointer; color: #3b6ea8; font-size: 13px; }
blockquote { margin: 4px 0 8px; padding: 4px 10px; border-left: 3px solid #3b6ea8;
             background: #f5f8fc; font-size: 13px; }
.meta { color: #7b8794; font-size: 12px; }
.drop { font-size: 13px; margin: 2px 0; }
.reason { color: #7b8794; font-size: 12px; font-family: ui-monospace, monospace; }
.refusal { color: #7b1fa2; font-size: 13px; }
.leak { color: #c62828; font-weight: 700; font-size: 13px; }
.muted { color: #9aa5b1; }
.problems li { margin: 3px 0; }
a { color: #3b6ea8; }
"""

_CARDS = [
    ("groundedness", "Groundedness", "rendered sentences re-checked: exact quote + supported", True),
    ("citation_coverage", "Citation coverage", "rendered sentences with ≥ 1 citation", True),
    ("draft_faithfulness", "Draft faithfulness", "proposed sentences that are supported", False),
    ("draft_citation_coverage", "Draft citation coverage", "proposed sentences resting on a span", False),
    ("answer_accuracy", "Answer accuracy", "answerable questions answered with the expected text", False),
    ("retrieval_hit_rate", "Retrieval hit rate", "questions whose expected document was retrieved", False),
    ("abstain_precision", "Abstain precision", "refusals that were on unanswerable questions", False),
    ("abstain_recall", "Abstain recall", "unanswerable questions refused", False),
    ("refusal_rate", "Refusal rate", "questions refused, any layer", False),
    ("drop_rate", "Drop rate", "proposed sentences the guard dropped", False),
]


def _pct(rate: dict[str, Any]) -> str:
    return "—" if rate["value"] is None else f"{rate['value']:.1%}"


def _card(name: str, rate: dict[str, Any], definition: str, *, invariant: bool = False,
          failed: bool = False) -> str:
    width = 0 if rate["value"] is None else rate["value"] * 100
    count = f"{rate['count']} / {rate['n']}" if rate["n"] else "nothing to measure (n = 0)"
    classes = "card" + (" inv" if invariant else "") + (" fail" if failed else "")
    return (f'<div class="{classes}"><div class="name">{escape(name)}</div>'
            f'<div class="value">{_pct(rate)}</div><div class="count">{count}</div>'
            f'<div class="bar"><span style="width:{width:.1f}%"></span></div>'
            f'<div class="def">{escape(definition)}</div></div>')


def _badge(text: str, colour: str) -> str:
    return f'<span class="badge" style="background:{colour}">{escape(text)}</span>'


def outcome_of(row: dict[str, Any]) -> tuple[str, str]:
    """A question's outcome label and colour, for the mix plot and the table."""
    if not row["answerable"]:
        return ("abstained (right)", TEAL) if row["refused"] else ("answered an unanswerable", RED)
    if row["refused"]:
        return "refused an answerable", PURPLE
    if row["correct"] is None:
        return "answered (not scored)", GREY
    return ("answered, correct", GREEN) if row["correct"] else ("answered, expected text missing", ORANGE)


def _summary_cards(s: dict[str, Any], failing: bool) -> str:
    cards = []
    for key, name, definition, invariant in _CARDS:
        rate = s[key]
        failed = invariant and rate["n"] > 0 and rate["count"] < rate["n"]
        cards.append(_card(name, rate, definition, invariant=invariant, failed=failed))
    leaks = s["instruction_leaks"]
    cards.append(_card("Injected text rendered", leaks,
                       "rendered sentences carrying a planted instruction (must be 0)",
                       invariant=False, failed=leaks["count"] > 0))
    lat = s["latency_ms"]
    p50 = "—" if lat["p50"] is None else f"{lat['p50']:.0f} ms"
    p95 = "—" if lat["p95"] is None else f"{lat['p95']:.0f} ms"
    cards.append(f'<div class="card"><div class="name">Latency p50 / p95</div>'
                 f'<div class="value">{p50}</div><div class="count">p95 {p95} · max '
                 f'{lat["max"] or 0:.0f} ms · n = {lat["n"]}</div>'
                 f'<div class="def">wall time of the whole streamed answer</div></div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _score_plot(rows: Sequence[dict[str, Any]]) -> str:
    probed = [r for r in rows if r["probe"]]
    if probed:
        kind = "probe"
        scorer = probed[0]["probe"]["scorer"]
        threshold = probed[0]["probe"]["threshold"]
        title = "Retrieval probe score by answerability"
        note = (f"Probe scorer <b>{escape(str(scorer))}</b>; the dashed line is its calibrated "
                f"threshold. Questions above it are answered, below it refused (mode permitting).")
        values = [(r, r["probe"]["score"]) for r in probed]
    else:
        kind = "top retrieval score"
        threshold = None
        title = "Top retrieval score by answerability (no probe in this run)"
        note = ("No retrieval probe ran, so this shows the best BM25 score of each question's "
                "retrieved passages instead; there is no threshold to draw.")
        values = [(r, r["top_score"] or 0.0) for r in rows]

    def tip(row: dict[str, Any], value: float) -> str:
        return f"{row['id']}: {value:.3g} — {row['question'][:80]}"

    groups = [
        ("answerable", BLUE, [(v, tip(r, v)) for r, v in values if r["answerable"]]),
        ("unanswerable", ORANGE, [(v, tip(r, v)) for r, v in values if not r["answerable"]]),
    ]
    svg = strip_plot(groups, xlabel=kind, threshold=threshold,
                     threshold_label="threshold")
    return (f'<div class="plot"><h3>{escape(title)}</h3><p>{note} Each dot is a question '
            f"(hover for its id); the black tick is the median.</p>{svg}</div>")


def _mix_plot(rows: Sequence[dict[str, Any]], s: dict[str, Any]) -> str:
    order = [("answered, correct", GREEN), ("answered, expected text missing", ORANGE),
             ("answered (not scored)", GREY), ("refused an answerable", PURPLE),
             ("abstained (right)", TEAL), ("answered an unanswerable", RED)]
    bars = []
    for label, subset in (("answerable", [r for r in rows if r["answerable"]]),
                          ("unanswerable", [r for r in rows if not r["answerable"]])):
        labels = [outcome_of(r)[0] for r in subset]
        bars.append((label, [(name, labels.count(name), colour) for name, colour in order]))
    dropped = {k: v["count"] for k, v in s["drop_rate_by_outcome"].items()}
    drafts = [("proposed", [
        ("rendered", s["counts"]["sentences"], GREEN),
        ("dropped: contradicted", dropped.get("contradicted", 0), RED),
        ("dropped: mentioned", dropped.get("mentioned", 0), ORANGE),
        ("dropped: unsupported", dropped.get("unsupported", 0), GREY),
        ("dropped: supported, no span", dropped.get("supported", 0), PURPLE),
    ])]
    layers = s["refusal_rate_by_layer"]
    layer_text = ", ".join(f"{k}: {v['count']}" for k, v in layers.items()) or "none"
    return ('<div class="plot"><h3>Outcome mix</h3><p>What happened to each question, by '
            f"answerability. Refusals by layer: {escape(layer_text)}.</p>"
            f"{stacked_bars(bars, label='question outcomes')}"
            "<p>What the guard did with each sentence the generator proposed.</p>"
            f"{stacked_bars(drafts, label='draft outcomes')}</div>")


def _latency_plot(rows: Sequence[dict[str, Any]], s: dict[str, Any]) -> str:
    lat = s["latency_ms"]
    markers = [(k, lat[k]) for k in ("p50", "p95") if lat[k] is not None]
    svg = histogram([r["latency_ms"] for r in rows], xlabel="latency (ms)", markers=markers)
    first = s["first_sentence_ms"]
    extra = (f" Time to the first verified sentence: p50 {first['p50']:.0f} ms, "
             f"p95 {first['p95']:.0f} ms." if first["p50"] is not None else "")
    return (f'<div class="plot"><h3>Latency per question</h3><p>Wall time from the question to '
            f"the <code>done</code> event.{extra}</p>{svg}</div>")


def _injection(det: dict[str, Any] | None) -> str:
    if not det:
        return ""
    cards = [
        _card("Detection recall", det["recall"], "planted instructions flagged"),
        _card("False flags: documents", det["false_flag_rate"], "clean documents with any flag"),
        _card("False flags: passages", det["passage_false_flag_rate"],
              "passages without planted text that carry a flag"),
    ]
    rows = []
    for item in det["instructions"]:
        mark = _badge("flagged", GREEN) if item["detected"] else _badge("missed", RED)
        rows.append(
            f"<tr><td>{mark}</td><td>{escape(item['where'])}</td><td>{escape(item['path'])}</td>"
            f"<td>{escape(item['text'])}</td><td class='reason'>{escape(item['channel'])}: "
            f"{escape(', '.join(item['flags']) or '—')}</td></tr>"
        )
    flagged_clean = [d for d in det["documents"] if d["flagged"] and not d["planted"]]
    clean_note = ("No clean document was flagged." if not flagged_clean else
                  "Flagged clean documents: " + ", ".join(escape(d["path"]) for d in flagged_clean))
    return (
        '<h2>Injection detection</h2><p class="sub">Observability only: flags never decide '
        "what is shown. Instructions the extractor drops (HTML comments, hidden elements) are "
        f"flagged at ingest; the rest on the passages that hold them. {clean_note}</p>"
        f'<div class="cards">{"".join(cards)}</div><br><table><thead><tr><th>Result</th>'
        "<th>Where</th><th>Document</th><th>Planted instruction</th><th>Flags</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _problems(rows: Sequence[dict[str, Any]]) -> str:
    items = []
    for r in rows:
        why = []
        if any(not s["grounded"] for s in r["sentences"]):
            why.append("ungrounded sentence")
        if any(s["leaks"] for s in r["sentences"]):
            why.append("injected text rendered")
        label, colour = outcome_of(r)
        if colour in (RED, ORANGE, PURPLE):
            why.append(label)
        if r["retrieval_hit"] is False:
            why.append("expected document not retrieved")
        if why:
            items.append(f'<li><a href="#{escape(r["id"])}">{escape(r["id"])}</a> — '
                         f"{escape(', '.join(why))}: {escape(r['question'])}</li>")
    if not items:
        return "<h2>Problems</h2><p>None: every question came out as labelled.</p>"
    return f'<h2>Problems ({len(items)})</h2><ul class="problems">{"".join(items)}</ul>'


def _answer_cell(r: dict[str, Any]) -> str:
    parts = []
    numbers: dict[tuple[str, int, int], int] = {}
    cited: list[dict[str, Any]] = []
    for s in r["sentences"]:
        marks = []
        for c in s["citations"]:
            key = (c["doc_id"], c["start"], c["end"])
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                cited.append(c)
            marks.append(f'<span class="cite">[{numbers[key]}]</span>')
        flag = ""
        if not s["grounded"]:
            flag += f' <span class="leak">UNGROUNDED: {escape("; ".join(s["problems"]))}</span>'
        if s["leaks"]:
            flag += f' <span class="leak">INJECTED: {escape("; ".join(s["leaks"]))}</span>'
        parts.append(f'<p class="sent">{escape(s["text"])}{"".join(marks)}{flag}</p>')
    if r["refused"]:
        layer = f"[{r['refusal_layer']}] " if r["refusal_layer"] else ""
        parts.append(f'<p class="refusal">No answer {escape(layer)}— {escape(r["refusal_reason"] or "")}</p>')
    if cited:
        quotes = "".join(
            f'<div><span class="cite">[{n}]</span> <b>{escape(c["title"])}</b> '
            f'<span class="meta">{escape(c["source"])} · chars {c["start"]}–{c["end"]}'
            f'{" · " + escape(c["region"]) if c["region"] else ""}</span>'
            f"<blockquote>{escape(c['quote'])}</blockquote></div>"
            for n, c in enumerate(cited, 1)
        )
        parts.append(f"<details><summary>{len(cited)} citation(s)</summary>{quotes}</details>")
    if r["dropped"]:
        drops = "".join(
            f'<div class="drop">{_badge(d["outcome"], RED if d["outcome"] == "contradicted" else GREY)} '
            f'{escape(d["text"])} <span class="reason">{escape("; ".join(d["reasons"]))}</span></div>'
            for d in r["dropped"]
        )
        parts.append(f"<details open><summary>{len(r['dropped'])} dropped sentence(s)</summary>{drops}</details>")
    return "".join(parts) or '<span class="muted">—</span>'


def _question_rows(rows: Sequence[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        label, colour = outcome_of(r)
        broken = any(not s["grounded"] or s["leaks"] for s in r["sentences"])
        css = "broken" if broken else ("wrong" if colour in (RED, ORANGE, PURPLE) else "")
        expected = escape(" | ".join(r["expect_contains"])) if r["expect_contains"] else (
            '<span class="muted">unanswerable</span>' if not r["answerable"] else "—")
        docs = ""
        if r["expect_docs"]:
            hit = _badge("retrieved", GREEN) if r["retrieval_hit"] else _badge("not retrieved", RED)
            docs = f'<div class="meta">{hit} {escape(", ".join(r["expect_docs"]))}</div>'
        score = r["probe"]["score"] if r["probe"] else r["top_score"]
        score_text = "—" if score is None else f"{score:.3g}"
        score_kind = f"probe {escape(r['probe']['signal'])}" if r["probe"] else "top BM25"
        flags = sum(1 for h in r["retrieved"] if h["flags"])
        flag_note = f'<div class="meta">{flags} flagged passage(s) retrieved</div>' if flags else ""
        out.append(
            f'<tr id="{escape(r["id"])}" class="{css}"><td><div class="id">{escape(r["id"])}</div>'
            f'<div class="q">{escape(r["question"])}</div>{docs}</td><td>{expected}</td>'
            f"<td>{_badge(label, colour)}</td><td>{_answer_cell(r)}</td>"
            f'<td>{score_text}<div class="meta">{score_kind}</div>{flag_note}</td>'
            f'<td>{r["latency_ms"]:.0f} ms</td></tr>'
        )
    return ("<table><thead><tr><th style='width:24%'>Question</th><th style='width:11%'>Expected</th>"
            "<th>Outcome</th><th style='width:42%'>Answer, citations, dropped</th><th>Score</th>"
            f"<th>Latency</th></tr></thead><tbody>{''.join(out)}</tbody></table>")


def render_html(result: EvalResult, *, title: str = "Tether evaluation") -> str:
    """The whole report as one HTML string (write it with UTF-8)."""
    s, rows = result.summary, result.questions
    run = s["run"]
    failures = result.gate_failures()
    if failures:
        banner = ('<div class="banner bad">Invariant broken<ul>'
                  + "".join(f"<li>{escape(f)}</li>" for f in failures) + "</ul></div>")
    else:
        g = s["groundedness"]
        banner = (f'<div class="banner ok">Invariants hold: every rendered sentence re-checked '
                  f"grounded ({g['count']}/{g['n']}), and no injected instruction was rendered.</div>")
    settings = ", ".join(f"{k} {v}" for k, v in run["settings"].items())
    sub = (f"{escape(run['name'] or 'golden set')} · {s['counts']['questions']} questions "
           f"({s['counts']['answerable']} answerable, {s['counts']['unanswerable']} unanswerable) · "
           f"generator {escape(str(run['generator']))} · scorer {escape(str(run['scorer']))} · "
           f"{escape(settings)} · {escape(run['at'])}")
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>"
        f"<h1>{escape(title)}</h1><p class='sub'>{sub}</p>{banner}"
        f"<h2>Summary</h2>{_summary_cards(s, bool(failures))}"
        f'<h2>Plots</h2><div class="plots">{_score_plot(rows)}{_mix_plot(rows, s)}'
        f"{_latency_plot(rows, s)}</div>"
        f"{_injection(s.get('injection_detection'))}{_problems(rows)}"
        f"<h2>Questions</h2>{_question_rows(rows)}</main></body></html>"
    )

"""Configuration in one place: defaults here, a TOML file over them, environment on top.

Every knob is a field of ``Settings`` with its default and the reason for it. The
file is ``$TETHER_CONFIG`` or ``tether.toml`` in the working directory; each key may
be overridden by ``TETHER_<KEY>`` in the environment (``TETHER_SUPPORT_OVERLAP=0.7``).
Unknown keys are an error, so a typo never silently leaves a guardrail at its default.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError

__all__ = ["Settings", "batch_collector", "default_db_location", "default_db_path", "default_reader",
           "default_retrieval", "load_settings"]


def default_reader() -> str:
    """The reader a Settings() gets when none is named: $TETHER_READER, else "trained".
    Read at construction (not only by ``load_settings``) so that a test suite, or a
    process, pinned to the lexical rules gets them however its settings are made."""
    return os.environ.get("TETHER_READER") or "trained"


def default_retrieval() -> str:
    """The ranking a Settings() gets when none is named: $TETHER_RETRIEVAL, else
    "fused"; read at construction, like ``default_reader``, for the same reason."""
    return os.environ.get("TETHER_RETRIEVAL") or "fused"


@dataclass(frozen=True, slots=True)
class Settings:
    # Guardrail (ADR 0000; the seeds' ADR 3): share of a sentence's content tokens the
    # passage must contain. Lowering it lets paraphrases through; raising it drops
    # correct sentences. Changing it is a decision, recorded in docs/adr.
    support_overlap: float = 0.66
    # Rules of the support test switched off, comma-separated names from
    # tether.verify.rules (ADR 0059): for measuring a rule, not for production. An
    # unknown name is an error naming it. Env: TETHER_SUPPORT_RULES_OFF=name,name.
    support_rules_off: str = ""
    # Passages are built from whole sentences up to about this many characters:
    # small enough that BM25 scores a focused unit, large enough to hold a fact with
    # its qualifiers.
    passage_chars: int = 600
    # Passages retrieved per question; the guard only accepts support from these.
    top_k: int = 8
    # How passages are ranked (ADR 0052): "fused", BM25's top retrieval_pool passages
    # re-ranked by reciprocal-rank fusion with the shipped embedder's similarity to the
    # question (finds the passage that says it in other words); "bm25", the full-text
    # index alone (no model read; kept for comparison).
    retrieval: str = dataclasses.field(default_factory=default_retrieval)
    # BM25 passages the fusion re-ranks: more finds more reworded passages, and each
    # one not yet in the process's cache costs one embedder read (~15-45 ms, 2 cores).
    retrieval_pool: int = 32
    # Full alignments per sentence: over more passages than this (`tether verify`, POST
    # /v1/verify, a large top_k), an index of rare shared words picks the candidates, so
    # N sentences x M passages cost N x this many alignments, not N x M. 16 holds top_k=8
    # passages and their 7 neighbour joins, so the guard's attribution is unchanged.
    max_alignments: int = 16
    # The extractive generator stitches at most this many sentences together.
    max_sentences: int = 3
    # Files over this size are refused before they are read whole.
    max_file_bytes: int = 50 * 1024 * 1024
    # Extracted text over this many characters is refused (a decompression bomb or a
    # dump, not a document).
    max_text_chars: int = 20_000_000
    # Page count and element nesting are checked before the parser does real work:
    # a 100,000-page PDF or 100,000 nested <div>s costs time and memory, not text.
    max_pdf_pages: int = 2_000
    max_html_depth: int = 512
    # HTML pages larger than this many bytes (after gzip is inflated) are read as a
    # stream of tags and text (``ingest/extract/htmlstream.py``): all visible text with
    # headings, lists and tables marked, hidden elements still left out, but no tree and
    # no trafilatura main-content pass, whose tree copies cost ~70 MiB of memory per MB
    # of page (619 MiB for an 8 MB page; the stream: ~60 MiB). It bounds the memory one
    # HTML page takes in a worker to about 100 MiB. Raise it to keep trafilatura's
    # boilerplate removal on larger pages, at that memory cost.
    html_full_extract_max_bytes: int = 1024 * 1024
    # PDF text drawn smaller than this many points (after every scaling) is dropped
    # at extraction, like white-on-white or invisible text: no reader can read it, so
    # no answer may quote it (planted text is set at 1-3 pt); fine print and footnote
    # marks are 5-7 pt. 0 keeps every size.
    min_pdf_text_pt: float = 4.0
    # A gzip-encoded HTML body or a PDF stream may inflate to at most this many times
    # the file's size (never less than 1 MiB, so small files are not refused): real
    # documents compress 3-20x; a decompression bomb, thousands of times.
    max_decompression_ratio: int = 100
    # Processes that extract and segment files during `tether ingest` (one writer
    # writes them); 0 = one per core. Peak memory grows with this times the per-file
    # limits above, never with the folder.
    ingest_workers: int = 0
    # A worker process is replaced by a fresh one after preparing this many files: its
    # heap keeps what the largest file it read made it grow to (glibc maps it, Python's
    # arenas fragment), so without a limit each worker holds its peak to the end of the
    # ingest, beside the others'. A replacement costs ~1 s of CPU (an interpreter and
    # the extractors' imports), so 20 files cost a few percent of an ingest.
    ingest_worker_max_files: int = 20
    # A question longer than this is refused rather than fed to the FTS parser.
    max_question_chars: int = 2_000
    # Provenance policy: when on, a sentence may rest only on original text; one that
    # only transcribed or generated text supports is withheld (with the reason), since
    # derived words do not appear in any source a reader could open.
    quote_original_only: bool = False
    # Modes of the extra gates — abstain (probe + answer check), contradiction,
    # figures, judge — as "gate=mode" items ("abstain=shadow,figures=off") or one
    # mode for all. Unset gates are "on"; a call's --mode / modes= wins per gate.
    # "shadow" first is how a gate is introduced (see tether.modes).
    modes: str = ""
    # A probe threshold pinned by hand as "SCORER=VALUE". Empty: the store's own
    # calibration (`tether calibrate`), else the documented default. Thresholds
    # belong to a scorer, so one pinned for another scorer is refused (ADR 0001).
    probe_threshold: str = ""
    # Generator used when a call names none. "extractive" needs no model and no
    # network, so a fresh install answers offline; "openai"/"anthropic" draft fluent
    # answers that the same guard verifies.
    generator: str = "extractive"
    # Where the LLM generators send requests ("" = the provider's public API). An
    # OpenAI-compatible server (vLLM, llama.cpp, Ollama) is usually http://HOST:PORT/v1.
    generator_base_url: str = ""
    # Model name for the LLM generators; no default, because a wrong guess costs money
    # or fails late.
    generator_model: str = ""
    # Seconds to wait for a response, and between streamed chunks, before the call
    # counts as failed: long enough for a slow first token, short enough that a stalled
    # stream ends with what was verified.
    generator_timeout: float = 30.0
    # Retries of a refused request (429, 5xx, timeout) before the first token; a
    # stream is never retried mid-way, since that would repeat verified sentences.
    generator_max_retries: int = 2
    # Upper bound on a drafted answer; a cut at this bound drops only the unfinished
    # last sentence.
    generator_max_tokens: int = 1024
    # How the LLM generators answer (ADR 0050): "quotes" — the model chooses passage
    # sentences by id and they are shown word for word, so a shown sentence is the
    # passage's own; "free" — the model writes its own sentences and the guard checks
    # each (kept for comparison, and for questions no single sentence answers);
    # "citations" — the anthropic generator only: the passages go out as documents
    # with Claude's citations on, and the stored sentences cited are shown (ADR 0057).
    generator_answers: str = "quotes"
    # With quotes, how many passage sentences the model is shown at most: the ones the
    # answerability model reads as likeliest to answer (ADR 0071); 0 shows them all.
    generator_shortlist: int = 8
    # With free answers, a generated sentence the guard does not accept is replaced by
    # the passage sentence the support model reads as stating its claim, when that
    # sentence is itself a verified quote and answers the question (ADR 0058); off:
    # it is dropped. The model's own words stay in the answer's trace.
    repair: bool = True
    # `tether stats` flags a window whose citation coverage or draft faithfulness
    # (or draft citation coverage) fell by more than this against the previous
    # window: 5 points is beyond the noise of a few hundred drafts, and well inside
    # what a chunking, prompt or model regression costs.
    drift_margin: float = 0.05
    # ...but only when both windows hold at least this many sentences or drafts; a
    # handful of answers swings a rate by tens of points and would flag noise.
    # (Groundedness below 100% is flagged at any size: one failure is a defect.)
    drift_min_n: int = 20
    # HTTP service: a JSON request body over this is refused (413) before it is parsed;
    # questions and verify requests are small, so a large body is a mistake or abuse.
    # Document uploads may be up to max_file_bytes on top of this.
    max_request_bytes: int = 1024 * 1024
    # JSON requests (HTTP bodies, `tether verify`/`resolve`/`ask --jsonl` input) nested
    # deeper than this, or holding a number longer than this many characters, are bad
    # input (400 / exit 2), refused before decoding: the deepest real request is 4
    # levels and its numbers are offsets and scores, while 200,000 levels exhaust the
    # decoder's recursion and a 100,000-digit number costs quadratic time to convert.
    max_json_depth: int = 64
    max_json_number_chars: int = 100
    # HTTP service: a request still running after this many seconds is answered with
    # 504 (or an ``error`` event mid-stream) and its work is stopped, so one slow
    # request cannot hold a worker thread for ever.
    request_timeout_s: float = 30.0
    # HTTP service: a connection whose request line and headers have not all arrived
    # this many seconds after it opened (or after its previous response) gets 408 and is
    # closed, so a client trickling its headers cannot hold a connection for ever
    # (uvicorn's keep-alive timer stops at the first byte). A request's body must
    # arrive within request_timeout_s, which counts from the end of the headers.
    header_timeout_s: float = 10.0
    # HTTP service, per-request work bounds (ADR 0023), refused with 413 naming the
    # setting before the work starts or as soon as it is reached:
    # POST /v1/verify checks at most this many sentences x passages. An answer's 10
    # sentences against 1,000 passages is 10,000; 50,000 cost ~1.5 s of CPU.
    max_verify_pairs: int = 50_000
    # Processes that check the sentences of one large `tether verify` request (forked,
    # from 100,000 sentences x passages; below that a fork costs more than it saves);
    # 0 = one per core, 1 = this process alone. Each sentence is checked on its own,
    # so the verdicts are the same at any count.
    verify_workers: int = 0
    # PDF content-stream tokens (operators and their operands, as pypdf's parser counts
    # them) parsed per document, and per page: a dense text page holds 5-20 thousand,
    # a detailed vector drawing a few hundred thousand. pypdf parses ~200,000 tokens a
    # second and one page's stream in one go, so the page bound is also the longest
    # stretch of work a deadline cannot interrupt (~2.5 s). Applies to every ingest.
    max_pdf_tokens: int = 20_000_000
    max_pdf_page_tokens: int = 500_000
    # HTTP service: requests of one API key (anonymous callers share one) that may run
    # heavy work at once — POST /v1/verify and POST /v1/documents; one more gets 429
    # with Retry-After, so a single key cannot occupy every worker thread.
    max_heavy_per_key: int = 2
    # HTTP service, original PDF pages (GET .../pages/{n}): pixels per PDF point of the
    # rendered page. 1.5 (108 dpi) keeps body text legible beside the extracted text;
    # the image is ~0.9 x 1.3 kpx for A4, tens of KB as PNG.
    page_scale: float = 1.5
    # ...and at most this many pixels per page image (the scale is lowered to fit): a
    # page may declare any size (a 200-inch poster), and its bitmap is 3-4 bytes a pixel.
    max_page_pixels: int = 8_000_000
    # Folders (os.pathsep-separated) whose PDFs may be rendered; "" = any local file a
    # document names as its source. Pages are rendered only from the document's own
    # file:// source and only while it still extracts to the cited version (ADR 0018);
    # set this on a server where untrusted callers can upload documents.
    page_roots: str = ""
    # How Tether reads (ADR 0044): "trained", its own models shipped in the package
    # decide which sentence answers, whether anything does, and (behind the exact
    # checks: figures, negation, names, quotes) what a passage states; "lexical", the
    # hand-written rules alone, kept for comparison.
    reader: str = dataclasses.field(default_factory=default_reader)
    # The answerability score one verified sentence must reach for the answer to stand
    # (reader = "trained"); 0 = the store's calibration (`tether calibrate`), else the
    # default of guard.answerable.
    answer_threshold: float = 0.0
    # Optional model judge behind the lexical test: "" (the reader's: with reader =
    # "trained", the shipped support model; else none), "nli:DIR" (an ONNX NLI
    # cross-encoder in a local directory, tether[nli]), "openai:MODEL" or
    # "anthropic:MODEL" (an LLM judge through the generator settings' server), or
    # "gguf:PATH" (the reader: a local GGUF model through llama.cpp). Its gate
    # is "judge" in `modes`; by default it can only take support away.
    judge: str = ""
    # Let an entailment from the judge lift a lexically unsupported paraphrase to
    # supported. Off: over-refusing is safe, over-claiming is not (ADR 0000).
    judge_accepts_paraphrase: bool = False
    # The reader, judge = "gguf:PATH" (tether[reader]): a local GGUF model run in-process
    # by llama.cpp, loaded once per process. Its P(yes) thresholds, pinned by hand as
    # "SHA256=support:P,answers:P" (refused for another model file); "" = the store's
    # calibration for the loaded model (`tether calibrate`), else 0.5 each.
    judge_threshold: str = ""
    # Seconds one reader call may take, waiting for a free llama.cpp slot included,
    # before it counts as failed (the lexical decision then stands). A call that had
    # reached a slot still runs to its end; one still waiting is cancelled.
    judge_timeout: float = 30.0
    # Tokens of context per llama.cpp slot: the longest prompt (instructions, passage
    # window, sentence) the reader reads at once; longer passages are read in windows.
    judge_ctx: int = 4096
    # llama.cpp slots (parallel sequences) of the reader. 1: concurrent asks queue and
    # each reuses the cached prompt; more decode together (measured in MODEL_CARD.md).
    judge_slots: int = 1
    # CPU threads for the reader; 0 = every core this process may use.
    judge_threads: int = 0
    # PostgreSQL text search configuration (stemming, stop words) of the full-text
    # index. Fixed when the schema is created; changing it needs `tether migrate`,
    # which rebuilds the index. SQLite's FTS5 porter tokenizer ignores it.
    search_language: str = "english"
    # Connections each process keeps to PostgreSQL: one per concurrent request is
    # enough; more only loads the server (its max_connections is shared by replicas).
    postgres_pool_size: int = 8

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}
READERS = ("trained", "lexical")
RETRIEVALS = ("fused", "bm25")  # retrieval; the ranks of tether.retrieve.fused
# generator_answers; the generators read the same names ("citations": anthropic only)
ANSWER_MODES = ("quotes", "free", "citations")
_LIMITS = ("max_file_bytes", "max_text_chars", "max_pdf_pages", "max_html_depth",
           "html_full_extract_max_bytes", "ingest_worker_max_files",
           "max_decompression_ratio", "max_question_chars", "max_request_bytes",
           "max_json_depth", "max_json_number_chars", "max_page_pixels", "max_alignments",
           "max_verify_pairs", "max_pdf_tokens", "max_pdf_page_tokens", "max_heavy_per_key",
           "retrieval_pool")


def _coerce(name: str, value: Any) -> Any:
    kind = type(getattr(Settings(), name))
    try:
        if kind is bool:
            if isinstance(value, str):
                return value.strip().lower() in {"1", "true", "yes", "on"}
            return bool(value)
        return kind(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"setting {name!r} must be a {kind.__name__}, got {value!r}",
            hint="fix the value in tether.toml or the TETHER_ environment variable",
        ) from exc


def load_settings(path: str | os.PathLike[str] | None = None, **overrides: Any) -> Settings:
    """Defaults, then the TOML file, then ``TETHER_*`` variables, then ``overrides``."""
    values: dict[str, Any] = {}
    file = Path(path) if path else Path(os.environ.get("TETHER_CONFIG", "tether.toml"))
    if file.is_file():
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{file}: not valid TOML: {exc}") from exc
        for key, value in data.get("tether", data).items():
            if key not in _FIELDS:
                raise ConfigError(
                    f"{file}: unknown setting {key!r}",
                    hint="known settings: " + ", ".join(sorted(_FIELDS)),
                )
            values[key] = _coerce(key, value)
    elif path:
        raise ConfigError(f"config file not found: {file}")
    for key in _FIELDS:
        env = os.environ.get(f"TETHER_{key.upper()}")
        if env is not None:
            values[key] = _coerce(key, env)
    for key, value in overrides.items():
        if key not in _FIELDS:
            raise ConfigError(f"unknown setting {key!r}")
        values[key] = _coerce(key, value)
    settings = Settings(**values)
    if not 0.0 < settings.support_overlap <= 1.0:
        raise ConfigError("support_overlap must be in (0, 1]")
    if settings.reader not in READERS:
        raise ConfigError(f"reader must be one of {', '.join(READERS)}, got {settings.reader!r}")
    if settings.retrieval not in RETRIEVALS:
        raise ConfigError(f"retrieval must be one of {', '.join(RETRIEVALS)}, got {settings.retrieval!r}")
    if settings.generator_answers not in ANSWER_MODES:
        raise ConfigError(f"generator_answers must be one of {', '.join(ANSWER_MODES)}, "
                          f"got {settings.generator_answers!r}")
    if not 0.0 < settings.page_scale <= 8.0:
        raise ConfigError("page_scale must be in (0, 8]")
    for name in _LIMITS:  # a zero or negative limit would refuse everything, or nothing
        if getattr(settings, name) < 1:
            raise ConfigError(f"{name} must be at least 1, got {getattr(settings, name)}")
    from .modes import parse_modes  # here: modes imports this module's errors only

    parse_modes(settings.modes)  # a typo in a gate or mode fails at load, not mid-answer
    return settings


def default_db_path() -> Path:
    """``$TETHER_DB``, else ``$XDG_DATA_HOME/tether/tether.db`` (``~/.local/share``)."""
    env = os.environ.get("TETHER_DB")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tether" / "tether.db"


def default_db_location() -> str | Path:
    """Like ``default_db_path``, but a ``postgresql://`` URL in ``$TETHER_DB`` is kept
    as text (a ``Path`` would fold its ``//``)."""
    env = os.environ.get("TETHER_DB")
    if env and env.startswith(("postgresql://", "postgres://")):
        return env
    return default_db_path()


def batch_collector() -> None:
    """Collect cyclic garbage less often in a process Tether runs (the CLI, an ingest
    worker). Their work builds large caches that live as long as the process (WordNet
    readings, prepared texts, passages), and the default collector (a pass every 700
    new objects) walks them again and again: ~15% of ``tether verify``'s CPU on
    1,000 × 1,000 and ~5% of ingest's, for no garbage freed. Cycles are still
    collected, every 50,000 new objects."""
    gc.set_threshold(50_000, 10, 10)

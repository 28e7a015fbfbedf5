"""What only the PostgreSQL store has: migrations, the text search language, URLs,
connection errors, the query builder, and selecting the backend by URL."""

from __future__ import annotations

import importlib
import json
import sys
import threading

import pytest

from tether.cli import main
from tether.config import Settings, default_db_location
from tether.errors import MissingExtra, StoreError
from tether.facade import Tether
from tether.store import is_postgres_url, open_store
from tether.store.migrations import MIGRATIONS

from .test_conformance import _doc


def _pg():
    """The module, imported lazily: without psycopg only the missing-extra test runs
    (skipped locally, a failure under CI=true, like a missing server)."""
    try:
        from tether.store import postgres
    except MissingExtra as exc:
        from conftest import _postgres_unavailable

        _postgres_unavailable(str(exc))
    return postgres


def _quiet(message: str) -> None:
    pass


def _scalar(url: str, query: str, params=()):
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(query, params).fetchone()
    return row[0] if row else None


# -- migrations ----------------------------------------------------------------------


def test_first_use_applies_migrations_once_with_a_message(pg_url):
    pg = _pg()
    messages: list[str] = []
    store = pg.PostgresStore(pg_url, notify=messages.append)
    store.close()
    assert len(messages) == 1 and "applying schema migrations" in messages[0]
    assert "0001_initial" in messages[0]
    again: list[str] = []
    pg.PostgresStore(pg_url, notify=again.append).close()
    assert again == []
    assert _scalar(pg_url, "SELECT count(*) FROM schema_migrations") == pg.SCHEMA_VERSION
    assert _scalar(pg_url, "SELECT value FROM meta WHERE key = 'schema_version'") == str(pg.SCHEMA_VERSION)


def test_processes_starting_together_migrate_once(pg_url):
    pg = _pg()
    messages: list[str] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def start() -> None:
        try:
            barrier.wait()
            pg.PostgresStore(pg_url, notify=messages.append, pool_size=1).close()
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert len(messages) == 1
    assert _scalar(pg_url, "SELECT count(*) FROM schema_migrations") == pg.SCHEMA_VERSION


def test_opening_without_create_on_an_empty_schema_says_how_to_create_it(pg_url):
    with pytest.raises(StoreError, match="no Tether schema") as info:
        _pg().PostgresStore(pg_url, create=False, notify=_quiet)
    assert "tether migrate" in str(info.value)
    assert _scalar(pg_url, "SELECT to_regclass('schema_migrations')::text") is None


def test_a_schema_newer_than_this_tether_is_refused(pg_url):
    pg = _pg()
    pg.PostgresStore(pg_url, notify=_quiet).close()
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')")
    with pytest.raises(StoreError, match="newer than this Tether"):
        pg.PostgresStore(pg_url, notify=_quiet)


def test_a_search_path_without_a_schema_is_a_clear_error(postgres_url):
    url = postgres_url + ("&" if "?" in postgres_url else "?") + "options=-csearch_path%3Dtether_nope"
    with pytest.raises(StoreError, match="no existing schema"):
        _pg().PostgresStore(url, notify=_quiet)


def test_answers_recorded_under_schema_1_get_citation_rows_on_upgrade(pg_url, monkeypatch):
    # Schema 1 kept citations only inside the answer JSON; migration 0002 makes them
    # rows, so gc keeps the versions those older answers cite (as SQLite's upgrade does).
    import psycopg
    from citehelp import cite, put_text

    from tether.store import postgres_schema

    pg = _pg()
    monkeypatch.setattr(postgres_schema, "MIGRATIONS", MIGRATIONS[:1])
    monkeypatch.setattr(postgres_schema, "SCHEMA_VERSION", 1)
    old = pg.PostgresStore(pg_url, notify=_quiet)
    document, v1 = put_text(old, "Methanol boils at 64.7 °C. It is toxic.")
    _, v2 = put_text(old, "Methanol boils at 64.7 °C. It is very toxic.")
    old.close()
    first, second = cite(document, v1, 0, 8), cite(document, v2, 9, 14)
    fields = first.__slots__

    def cited(*citations):
        # Through JSON, as a recorded payload is (tuples come back as lists).
        return json.loads(json.dumps([{f: getattr(c, f) for f in fields} for c in citations]))

    payloads = {
        "tr_a": {"question": "q \u0000", "sentences": [
            {"text": "x", "citations": cited(first)},
            {"citations": ["junk", {"doc_id": 1}]},
            {"text": "y", "citations": cited(second, first)},
        ]},
        "tr_b": {"question": "none", "sentences": "not a list"},
    }
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for trace_id, payload in payloads.items():
            conn.execute("INSERT INTO answers VALUES (%s, %s, %s)",
                         (trace_id, "2026-01-01T00:00:00", json.dumps(payload, ensure_ascii=False)))
        conn.execute("INSERT INTO answers VALUES ('tr_c', '2026-01-01T00:00:00', 'not json')")
    monkeypatch.undo()

    store = pg.PostgresStore(pg_url, notify=_quiet)
    try:
        assert store.get_meta("schema_version") == str(pg.SCHEMA_VERSION)
        assert store.answer_citations("tr_a") == [(0, first), (2, second), (2, first)]
        assert store.answer_citations("tr_b") == store.answer_citations("tr_c") == []
        assert store.answer_record("tr_a") == payloads["tr_a"]  # the answer itself untouched
        put_text(store, "Methanol boils at 64.7 °C. Keep it shut.")  # v2 is old now too
        assert store.collect_versions().kept_cited == 2  # v1 and v2, cited before the upgrade
        assert store.version(document.doc_id, v1.version).text == v1.text
    finally:
        store.close()


def test_migration_status_reports_without_changing_anything(pg_url):
    pg = _pg()
    every = tuple(f"{m.version:04d}_{m.name}" for m in MIGRATIONS)
    assert every[:2] == ("0001_initial", "0002_citations_shadow_metrics_keys")
    before = pg.migration_status(pg_url)
    assert (before.before, before.pending, before.language) == (0, every, None)
    assert _scalar(pg_url, "SELECT to_regclass('schema_migrations')::text") is None
    pg.migrate(pg_url, notify=_quiet)
    after = pg.migration_status(pg_url)
    assert (after.before, after.pending, after.language) == (pg.SCHEMA_VERSION, (), "english")


# -- the text search language --------------------------------------------------------


def test_a_language_mismatch_is_refused_and_migrate_rebuilds_the_index(pg_url):
    pg = _pg()
    store = pg.PostgresStore(pg_url, notify=_quiet)
    store.put(*_doc())
    assert store.search(["boiling"], limit=5)  # english stems boiling -> boil
    store.close()
    fresh_expression = _scalar(
        pg_url,
        "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a"
        " ON a.attrelid = d.adrelid AND a.attnum = d.adnum"
        " WHERE d.adrelid = 'passages'::regclass AND a.attname = 'tsv'",
    )
    with pytest.raises(StoreError, match="indexed for text search language 'english'"):
        pg.PostgresStore(pg_url, language="simple", notify=_quiet)

    report = pg.migrate(pg_url, language="simple", notify=_quiet)
    assert report.reindexed and report.applied == ()
    simple = pg.PostgresStore(pg_url, language="simple", notify=_quiet)
    assert simple.scorer.endswith(":simple")
    assert simple.search(["boiling"], limit=5) == []  # no stemming in 'simple'
    assert simple.search(["boils"], limit=5)
    simple.close()

    pg.migrate(pg_url, language="english", notify=_quiet)
    rebuilt = _scalar(
        pg_url,
        "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a"
        " ON a.attrelid = d.adrelid AND a.attnum = d.adnum"
        " WHERE d.adrelid = 'passages'::regclass AND a.attname = 'tsv'",
    )
    # The rebuild uses exactly the expression the first migration creates.
    assert rebuilt == fresh_expression
    english = pg.PostgresStore(pg_url, notify=_quiet)
    assert english.search(["boiling"], limit=5)
    english.close()


def test_an_unknown_language_is_refused_before_anything_is_created(pg_url):
    with pytest.raises(StoreError, match="no text search configuration 'klingon'"):
        _pg().PostgresStore(pg_url, language="klingon", notify=_quiet)
    assert _scalar(pg_url, "SELECT to_regclass('passages')::text") is None


# -- connections, URLs, errors --------------------------------------------------------


def test_an_unreachable_server_is_one_clear_store_error():
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL at postgresql://u:\\*\\*\\*@127.0.0.1:1/x"):
        _pg().PostgresStore("postgresql://u:secret@127.0.0.1:1/x", notify=_quiet)


def test_redact_hides_only_the_password():
    redact = _pg().redact
    assert redact("postgresql://u:pw@h:5/db?x=1") == "postgresql://u:***@h:5/db?x=1"
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"
    assert redact("postgresql://h/db") == "postgresql://h/db"


def test_location_hides_the_password(pg_url):
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(pg_url)
    user, host = parts.netloc.rsplit("@", 1) if "@" in parts.netloc else ("postgres", parts.netloc)
    user = user.split(":", 1)[0]
    url = urlunsplit(parts._replace(netloc=f"{user}:s3cret@{host}"))
    store = _pg().PostgresStore(url, notify=_quiet)
    try:
        assert store.location == urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
        assert "s3cret" not in store.location
    finally:
        store.close()


def test_write_failures_surface_as_store_errors(pg_backend):
    store = pg_backend.open()
    document, version, passages = _doc()
    with pytest.raises(StoreError, match="duplicate key"):
        store.put(document, version, passages + [passages[0]])


def test_search_sql_binds_every_term_and_rejects_none():
    pg = _pg()
    with pytest.raises(ValueError):
        pg.search_sql(0, "english", acl=False)
    with pytest.raises(ValueError):
        pg.exhaustive_sql(0, "english", acl=False)
    text = pg.exhaustive_sql(3, "english", acl=True).as_string(None)
    assert text.count("plainto_tsquery('english'::regconfig, %s)") == 3
    assert text.count("%s") == 3 + 1 + 1  # terms, principals, limit
    assert "p.acl && %s::text[]" in text
    assert "p.acl &&" not in pg.exhaustive_sql(1, "english", acl=False).as_string(None)
    wide = pg.exhaustive_sql(500, "english", acl=False).as_string(None)
    assert wide.count("%s") == 500 + 1
    assert f"AS q{pg.MAX_TERM_GROUPS - 1}" in wide and f"AS q{pg.MAX_TERM_GROUPS}" not in wide


def test_stop_words_alone_match_nothing_without_error(pg_backend):
    store = pg_backend.open()
    store.put(*_doc())
    assert store.search(["the", "and"], limit=5) == []
    assert store.search(["the", "methanol"], limit=5)


# -- selection by URL ------------------------------------------------------------------


def test_open_store_and_tether_dispatch_on_the_url(pg_url, tmp_path, monkeypatch):
    pg = _pg()
    assert is_postgres_url(pg_url) and is_postgres_url("postgres://h/db")
    assert not is_postgres_url(str(tmp_path / "x.db")) and not is_postgres_url(tmp_path)
    store = open_store(pg_url, settings=Settings(postgres_pool_size=2))
    assert isinstance(store, pg.PostgresStore)
    store.put(*_doc())
    store.close()
    monkeypatch.setenv("TETHER_DB", pg_url)
    assert default_db_location() == pg_url
    with Tether(create=False) as tether:
        assert isinstance(tether.store, pg.PostgresStore)
        assert tether.store.counts()["documents"] == 1


def test_a_missing_extra_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.delitem(sys.modules, "tether.store.postgres", raising=False)
    with pytest.raises(MissingExtra, match=r"tether\[postgres\]"):
        importlib.import_module("tether.store.postgres")
    with pytest.raises(MissingExtra):
        open_store("postgresql://127.0.0.1/test")


# -- tether migrate ------------------------------------------------------------------


def test_migrate_command_creates_reports_and_rebuilds(pg_url, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no tether.toml from the working directory

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        return int(info.value.code or 0), out, err

    code, out, _ = run("migrate", "--db", pg_url, "--status")
    assert code == 0 and f"schema 0 of {len(MIGRATIONS)}" in out
    assert all(f"pending: {m.version:04d}_{m.name}" in out for m in MIGRATIONS)
    code, out, _ = run("ask", "anything", "--db", pg_url)
    assert code == 3
    code, out, _ = run("migrate", "--db", pg_url)
    assert code == 0 and "migrated" in out
    assert all(f"applied: {m.version:04d}_{m.name}" in out for m in MIGRATIONS)
    code, out, _ = run("migrate", "--db", pg_url)
    assert code == 0 and "applied" not in out and "up to date" in out
    monkeypatch.setenv("TETHER_SEARCH_LANGUAGE", "simple")
    code, out, err = run("ask", "anything", "--db", pg_url)
    assert code == 3 and err.count("\n") == 1 and "tether migrate" in err
    code, out, _ = run("migrate", "--db", pg_url)
    assert code == 0 and "rebuilt the full-text index for 'simple'" in out
    monkeypatch.setenv("TETHER_SEARCH_LANGUAGE", "klingon")
    code, out, err = run("migrate", "--db", pg_url)
    assert code == 3 and "klingon" in err and "Traceback" not in err


def test_migrate_command_on_sqlite_and_an_unreachable_server(tmp_path, capsys, monkeypatch):
    # SQLite's schema version is its own (2 since the citations table), not PostgreSQL's.
    from tether.store.sqlite import SCHEMA_VERSION as SQLITE_SCHEMA

    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "store.db")
    for args, expect_code, expect in [
        (["migrate", "--db", db, "--status"], 0, "no store yet"),
        (["migrate", "--db", db], 0, f"SQLite schema {SQLITE_SCHEMA}, up to date"),
        (["migrate", "--db", "postgresql://nobody@127.0.0.1:1/test"], 3, "cannot connect"),
    ]:
        with pytest.raises(SystemExit) as info:
            main(args)
        out, err = capsys.readouterr()
        assert int(info.value.code or 0) == expect_code
        assert expect in out + err

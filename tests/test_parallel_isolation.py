"""What tests share under pytest-xdist (ADR 0055), made per worker process: the
PostgreSQL schemas (each worker names its schemas with a prefix of its own and, at the
end of its session, drops only those) and the default store."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
from cli.conftest import run_tether

from conftest import PG_RUN_PREFIX, drop_schemas_named


def _schemas(url: str, prefix: str) -> list[str]:
    import psycopg  # after ``postgres_url``, which skips (fails in CI) without it

    with psycopg.connect(url, autocommit=True) as conn:
        return sorted(name for (name,) in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (prefix,)))


def test_the_prefix_names_this_worker_and_this_process() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    assert PG_RUN_PREFIX.startswith(f"tether_test_{worker}_{os.getpid()}_")


def test_the_cleanup_drops_this_workers_schemas_and_leaves_another_workers(postgres_url: str) -> None:
    # Another worker's schemas: the same run, another process (as gw1 is to gw0).
    other = f"tether_test_gwother_{os.getpid() + 1}_{secrets.token_hex(3)}_"
    mine, theirs = PG_RUN_PREFIX + "left" + secrets.token_hex(2), other + "live"
    import psycopg
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {mine}")
        conn.execute(f"CREATE SCHEMA {theirs}")
    try:
        assert mine in drop_schemas_named(postgres_url, PG_RUN_PREFIX)
        assert _schemas(postgres_url, PG_RUN_PREFIX) == []
        assert _schemas(postgres_url, other) == [theirs]
    finally:
        drop_schemas_named(postgres_url, other)


@pytest.mark.parametrize("n", range(2))
def test_each_test_gets_an_empty_schema_of_this_worker(pg_url: str, n: int) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        (schema,) = conn.execute("SELECT current_schema()").fetchone() or (None,)
        assert schema is not None and schema.startswith(PG_RUN_PREFIX)
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = %s", (schema,))
        assert tables.fetchone() == (0,)
        conn.execute("CREATE TABLE t (n integer)")  # left for the fixture to drop


def test_a_command_without_db_uses_this_processs_own_default_store(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Methanol boils at 64.7 °C.\n", encoding="utf-8")
    ran = run_tether("ingest", str(note))
    assert ran.code == 0, ran.err
    data_home = Path(os.environ["XDG_DATA_HOME"])
    assert data_home != Path.home() / ".local" / "share"
    assert ran.out.rstrip().endswith(str(data_home / "tether" / "tether.db"))

"""The store conformance suite runs against every backend listed in ``BACKENDS``.

A backend gives ``open()`` (a new handle on one store: several handles stand for
several processes), ``location`` (what ``--db`` takes) and ``drop()``.

PostgreSQL: the server is ``$TETHER_TEST_POSTGRES`` (default
``postgresql://postgres@127.0.0.1:5432/test``). Every test gets a schema of its own
with a random name, selected through the URL's ``search_path``, and dropped afterwards;
whatever a crashed test left is dropped at the end of the run. When the server or
psycopg is missing, the postgres tests are skipped locally and fail under ``CI=true``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.store import Store
from tether.store.sqlite import SQLiteStore

POSTGRES_URL = os.environ.get("TETHER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
RUN_PREFIX = f"tether_test_{os.getpid()}_{secrets.token_hex(3)}_"


def with_search_path(url: str, schema: str) -> str:
    return url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"


class SQLiteBackend:
    name = "sqlite"

    def __init__(self, tmp_path: Path) -> None:
        self.location = str(tmp_path / "store.db")

    def open(self, **options: Any) -> Store:
        return SQLiteStore(self.location)

    def drop(self) -> None:
        pass


class PostgresBackend:
    name = "postgres"

    def __init__(self, admin_url: str) -> None:
        import psycopg

        self.admin_url = admin_url
        self.schema = RUN_PREFIX + secrets.token_hex(4)
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {self.schema}")
        self.location = with_search_path(admin_url, self.schema)

    def open(self, **options: Any) -> Store:
        from tether.store.postgres import PostgresStore

        options.setdefault("notify", lambda message: None)
        return PostgresStore(self.location, **options)

    def drop(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required in CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL not available ({reason}); CI=true makes this a failure")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The admin URL of a reachable server; skips (fails in CI) when there is none."""
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ModuleNotFoundError as exc:
        _unavailable(f"{exc.name} is not installed: pip install -e '.[test]'")
    try:
        with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5):
            pass
    except psycopg.Error as exc:
        _unavailable(f"cannot connect to {POSTGRES_URL}: {str(exc).strip().splitlines()[0]}")
    yield POSTGRES_URL
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        left = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (RUN_PREFIX,)
        ).fetchall()
        for (schema,) in left:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def _sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> SQLiteBackend:
    return SQLiteBackend(tmp_path)


def _postgres(request: pytest.FixtureRequest, tmp_path: Path) -> PostgresBackend:
    return PostgresBackend(request.getfixturevalue("postgres_url"))


BACKENDS: dict[str, Callable[[pytest.FixtureRequest, Path], Any]] = {
    "sqlite": _sqlite,
    "postgres": _postgres,
}


class Handles:
    """A backend plus every store opened on it, all closed before the backend drops."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.name: str = backend.name
        self.location: str = backend.location
        self._opened: list[Store] = []

    def open(self, **options: Any) -> Store:
        store: Store = self.backend.open(**options)
        self._opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self._opened:
            try:
                store.close()
            except Exception:  # noqa: BLE001 - already closed by the test
                pass


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Handles]:
    handles = Handles(BACKENDS[request.param](request, tmp_path))
    try:
        yield handles
    finally:
        handles.close_all()
        handles.backend.drop()


@pytest.fixture
def store(backend: Handles) -> Store:
    return backend.open()


@pytest.fixture
def pg_backend(postgres_url: str) -> Iterator[Handles]:
    """A fresh PostgreSQL schema only, for tests of what SQLite does not have."""
    handles = Handles(PostgresBackend(postgres_url))
    try:
        yield handles
    finally:
        handles.close_all()
        handles.backend.drop()

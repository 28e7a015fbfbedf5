"""The store conformance suite runs against every backend listed in ``BACKENDS``.

A backend gives ``open()`` (a new handle on one store: several handles stand for
several processes), ``location`` (what ``--db`` takes) and ``drop()``.

PostgreSQL: every test gets a schema of its own (see ``postgres_url`` and
``pg_schemas`` in tests/conftest.py), dropped afterwards. When the server or
psycopg is missing, the postgres tests are skipped locally and fail under ``CI=true``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.store import Store
from tether.store.sqlite import SQLiteStore


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

    def __init__(self, location: str) -> None:
        self.location = location

    def open(self, **options: Any) -> Store:
        from tether.store.postgres import PostgresStore

        options.setdefault("notify", lambda message: None)
        return PostgresStore(self.location, **options)

    def drop(self) -> None:
        pass  # the pg_schemas fixture drops the schema after the test


def _sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> SQLiteBackend:
    return SQLiteBackend(tmp_path)


def _postgres(request: pytest.FixtureRequest, tmp_path: Path) -> PostgresBackend:
    return PostgresBackend(request.getfixturevalue("pg_schemas").new())


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
def pg_backend(pg_url: str) -> Iterator[Handles]:
    """A fresh PostgreSQL schema only, for tests of what SQLite does not have."""
    handles = Handles(PostgresBackend(pg_url))
    try:
        yield handles
    finally:
        handles.close_all()
        handles.backend.drop()

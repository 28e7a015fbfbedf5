import atexit
import os
import shutil
import tempfile

import pytest

# The suite was written against the hand-written rules, and pins them: Settings read
# from the environment use reader = "lexical". The trained reader (the product's
# default, ADR 0044) is tested where a test asks for it (``trained_env``, or
# Settings(reader="trained")): tests/readers, tests/pipeline/test_trained_reader.py,
# tests/cli/test_trained_reader_cli.py.
os.environ.setdefault("TETHER_READER", "lexical")
# Likewise BM25 alone: the suite's retrieval expectations are the full-text index's.
# Fused retrieval (the product's default, ADR 0052) is tested where a test asks for
# it: tests/retrieve/test_fused.py, tests/readers/test_embedder.py.
os.environ.setdefault("TETHER_RETRIEVAL", "bm25")

# The default store ($XDG_DATA_HOME/tether/tether.db) is this test process's own: a
# command run without --db never touches the developer's store, nor the one another
# pytest-xdist worker's tests use at the same time.
_DATA_HOME = tempfile.mkdtemp(prefix="tether-test-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
os.environ.pop("TETHER_DB", None)  # a test that wants one sets it
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)

from tether.config import Settings


@pytest.fixture
def settings() -> Settings:
    return Settings()


# -- PostgreSQL ----------------------------------------------------------------------
# The server is $TETHER_TEST_POSTGRES (default: the local one, trust auth). Each test
# that asks for ``pg_url`` gets a schema of its own with a random name, selected by the
# URL's search_path, dropped afterwards; what a crashed test left is dropped at the end
# of the run. Without a server (or psycopg) those tests skip locally, fail under CI=true.

import os  # noqa: E402
import secrets  # noqa: E402
from collections.abc import Iterator  # noqa: E402

POSTGRES_URL = os.environ.get("TETHER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
# One prefix per test process: each pytest-xdist worker (gw0, gw1, ...) is a process of
# its own, with its own session, and drops only the schemas its own prefix names.
PG_RUN_PREFIX = (f"tether_test_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{os.getpid()}_"
                 f"{secrets.token_hex(3)}_")


def with_search_path(url: str, schema: str) -> str:
    return url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"


def _postgres_unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required in CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL not available ({reason}); CI=true makes this a failure")


def _create_database(url: str) -> None:
    """The server is there but the database is not: create it from the server's
    maintenance database (CI machines start with a bare server)."""
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = str(conninfo_to_dict(url).get("dbname") or "")
    try:
        with psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as exc:
        _postgres_unavailable(f"cannot create database {name!r}: {str(exc).strip().splitlines()[0]}")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The admin URL of a reachable server; skips (fails in CI) when there is none."""
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ModuleNotFoundError as exc:
        _postgres_unavailable(f"{exc.name} is not installed: pip install -e '.[test]'")
    try:
        with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5):
            pass
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            _postgres_unavailable(f"cannot connect to {POSTGRES_URL}: {str(exc).strip().splitlines()[0]}")
        _create_database(POSTGRES_URL)
    yield POSTGRES_URL
    drop_schemas_named(POSTGRES_URL, PG_RUN_PREFIX)


def drop_schemas_named(url: str, prefix: str) -> list[str]:
    """Drop what this process's tests left (a crashed test's schemas): only names that
    start with ``prefix``, never another worker's or another run's. Returns them."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        left = [schema for (schema,) in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (prefix,)
        ).fetchall()]
        for schema in left:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    return left


class PgSchemas:
    """Fresh schemas on the test server; ``new()`` gives a URL selecting one."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self.created: list[str] = []

    def new(self) -> str:
        import psycopg

        schema = PG_RUN_PREFIX + secrets.token_hex(4)
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        self.created.append(schema)
        return with_search_path(self.admin_url, schema)

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for schema in self.created:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def pg_schemas(postgres_url: str) -> Iterator[PgSchemas]:
    """Schemas for this test, dropped afterwards (close stores on them first)."""
    schemas = PgSchemas(postgres_url)
    try:
        yield schemas
    finally:
        schemas.drop_all()


@pytest.fixture
def pg_url(pg_schemas: PgSchemas) -> str:
    """A URL whose search_path is a fresh, empty schema (dropped afterwards)."""
    return pg_schemas.new()


# -- slow tests ----------------------------------------------------------------------
# ``pytest -m "not slow"`` leaves these out while a developer iterates (CI runs them
# all): every test that drives Chromium (the ``BROWSERS`` fixtures), and the modules
# below, each of which starts many processes (or kills them at random points) or runs
# the reader judge's LLM, for half a minute to three minutes of a worker's time.
BROWSERS = frozenset({"browser", "chromium"})
# Heaviest first (seconds of one worker under `-n 2`, issue 35's runs): they start first.
SLOW_MODULES = (
    "tests/store/test_multiprocess.py",  # ~185 s
    "tests/store/test_sqlite_processes.py",  # ~126 s
    "tests/cli/test_ctrl_c.py",  # ~83 s
    "tests/judges/test_reader_cli.py",  # ~82 s
    "tests/ingest/test_ingest_crash.py",  # ~40 s
    "tests/judges/test_reader.py",  # ~35 s
    "tests/service/test_verify_scale.py",  # ~31 s
    "tests/service/test_deadlines.py",  # ~28 s
    "tests/ingest/test_memory_bound.py",  # ~16 s
)


def _slow_rank(item: pytest.Item) -> int | None:
    """Where ``item``'s file runs among the slow ones, or None: not slow."""
    module = item.nodeid.split("::")[0]
    if module in SLOW_MODULES:
        return SLOW_MODULES.index(module)
    if not BROWSERS.isdisjoint(getattr(item, "fixturenames", ())):
        return len(SLOW_MODULES)
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the slow tests, and runs their files first, heaviest first: with each file
    whole on one worker (``--dist loadfile``), a long file started last would finish
    alone (``--no-loadscope-reorder`` keeps this order)."""
    last = len(SLOW_MODULES) + 1
    files: dict[str, int] = {}  # a file's place: that of its slowest test
    for item in items:
        rank = _slow_rank(item)
        if rank is not None:
            item.add_marker(pytest.mark.slow)
        file = item.nodeid.split("::")[0]
        files[file] = min(files.get(file, last), last if rank is None else rank)
    items.sort(key=lambda item: files[item.nodeid.split("::")[0]])  # stable: a file's order stays

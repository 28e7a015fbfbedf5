"""The store conformance suite runs against every backend listed in ``BACKENDS``."""

import pytest

from tether.store.sqlite import SQLiteStore


def _sqlite(tmp_path):
    return SQLiteStore(tmp_path / "store.db")


BACKENDS = {"sqlite": _sqlite}


@pytest.fixture(params=sorted(BACKENDS))
def store(request, tmp_path):
    s = BACKENDS[request.param](tmp_path)
    yield s
    s.close()

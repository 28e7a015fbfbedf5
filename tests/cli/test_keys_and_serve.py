"""``tether keys`` and the start-up checks of ``tether serve`` (no server is started)."""

from __future__ import annotations

import pytest

from tether import Tether
from tether.cli import main
from tether.ops.apikeys import hash_key


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_add_prints_the_key_once_and_stores_only_its_hash(tmp_path, capsys):
    db = str(tmp_path / "k.db")
    code, out, err = run(capsys, "keys", "add", "ops", "--principal", "finance", "--principal", "hr", "--db", db)
    assert code == 0
    key = out.strip()
    assert key.startswith("tk_") and "\n" not in key and "not shown again" in err
    with Tether(db, create=False) as tether:
        assert tether.store.principals_for(hash_key(key)) == ("finance", "hr")
    for path in tmp_path.iterdir():  # nowhere on disk, WAL included
        assert key.encode() not in path.read_bytes()
    code, out, _ = run(capsys, "keys", "list", "--db", db)
    assert code == 0 and out.startswith("ops\tfinance,hr\t") and key not in out


def test_duplicate_unknown_and_missing_principal_are_clear_errors(tmp_path, capsys):
    db = str(tmp_path / "k.db")
    assert run(capsys, "keys", "add", "ops", "--principal", "p", "--db", db)[0] == 0
    code, _, err = run(capsys, "keys", "add", "ops", "--principal", "p", "--db", db)
    assert code == 2 and err.startswith("error: an API key named 'ops' already exists")
    code, _, err = run(capsys, "keys", "revoke", "nobody", "--db", db)
    assert code == 4 and "no API key named 'nobody'" in err
    code, _, err = run(capsys, "keys", "add", "x", "--db", db)
    assert code == 2 and "--principal" in err
    code, _, err = run(capsys, "keys", "revoke", "ops", "--db", db)
    assert code == 0 and "revoked" in err
    code, out, err = run(capsys, "keys", "list", "--db", db)
    assert code == 0 and out == "" and "no API keys" in err


def test_serve_without_keys_refuses_a_non_loopback_address(tmp_path, capsys):
    db = tmp_path / "s.db"
    Tether(db).close()
    code, _, err = run(capsys, "serve", "--db", str(db), "--host", "0.0.0.0", "--port", "0")
    assert code == 2
    assert "no API keys configured" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_serve_needs_an_existing_store(tmp_path, capsys):
    code, _, err = run(capsys, "serve", "--db", str(tmp_path / "none.db"), "--port", "0")
    assert code == 3 and "no store at" in err
    assert not (tmp_path / "none.db").exists()

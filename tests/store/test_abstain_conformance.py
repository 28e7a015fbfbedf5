"""Store behaviour the abstain gate relies on: term counts for IDF, the shadow log."""

import pytest

from tether.errors import StoreError

from .test_conformance import _doc


def test_term_counts_match_retrieval_and_respect_acl(store):
    store.put(*_doc())
    store.put(*_doc(source="https://ex.org/secret", text="Kestrel boils methanol.", acl=("finance",)))
    total, df = store.term_counts(["methanol", "boils", "kestrel", "xylene"])
    assert total == 2
    assert df == {"methanol": 2, "boils": 2, "kestrel": 1, "xylene": 0}
    # Counted through the index: "boiling" stems like "boils" does for retrieval.
    assert store.term_counts(["boiling"])[1]["boiling"] == 2
    # What a caller may not read does not show in the counts either.
    total, df = store.term_counts(["methanol", "kestrel"], principals=["public"])
    assert total == 1 and df == {"methanol": 1, "kestrel": 0}
    assert store.term_counts(['"', "AND"])[1] == {'"': 0, "AND": 0}  # query syntax is data


@pytest.mark.parametrize("principals", [None, ["public"]])
def test_term_counts_see_only_current_versions_and_remaining_documents(store, principals):
    # Counting without an ACL skips the joins: only right if the index holds exactly
    # the current passages, through re-ingest and deletion.
    store.put(*_doc())
    store.put(*_doc(text="Methanol is a solvent. Methanol is toxic.", max_chars=25))
    other = _doc(source="https://ex.org/other", text="Toluene boils at 111 °C.")
    store.put(*other)
    total, df = store.term_counts(["methanol", "boils", "solvent"], principals=principals)
    assert (total, df) == (3, {"methanol": 2, "boils": 1, "solvent": 1})
    store.delete_document(other[0].doc_id)
    assert store.term_counts(["boils", "toluene"], principals=principals) == (
        2, {"boils": 0, "toluene": 0}
    )


def _entry(n):
    return {
        "created_at": f"2026-01-0{n}T00:00:00", "trace_id": f"tr_{n}", "question": f"q{n}?",
        "gate": "abstain", "layer": "probe", "reason": "weak", "suppressed": "refusal",
        "text": "No answer [probe]: weak.",
    }


def test_shadow_log_appends_and_lists_oldest_first(store):
    assert store.shadow_entries() == []
    for n in (1, 2, 3):
        store.record_shadow(_entry(n))
    entries = store.shadow_entries()
    assert [e["trace_id"] for e in entries] == ["tr_1", "tr_2", "tr_3"]
    assert {k: v for k, v in entries[0].items() if k != "id"} == _entry(1)
    assert [e["trace_id"] for e in store.shadow_entries(limit=2)] == ["tr_2", "tr_3"]


def test_shadow_log_rejects_incomplete_entries(store):
    with pytest.raises(StoreError, match="lacks reason"):
        store.record_shadow({k: v for k, v in _entry(1).items() if k != "reason"})
    assert store.shadow_entries() == []


def test_an_older_sqlite_store_gains_the_shadow_log(tmp_path):
    from tether.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "old.db")
    store._db.execute("DROP TABLE shadow_log")  # as made before the shadow log existed
    store.close()
    reopened = SQLiteStore(tmp_path / "old.db")
    try:
        reopened.record_shadow(_entry(1))
        assert len(reopened.shadow_entries()) == 1
    finally:
        reopened.close()

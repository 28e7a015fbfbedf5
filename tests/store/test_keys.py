"""API key storage, part of the conformance every store backend must share."""

import pytest

from tether.errors import InputError
from tether.ops.apikeys import hash_key, new_key


def test_keys_are_stored_by_hash_and_listed_without_it(store):
    key = new_key()
    store.add_key("ops", ["finance", "hr"], hash_key(key))
    assert store.principals_for(hash_key(key)) == ("finance", "hr")
    assert store.principals_for(hash_key(key + "x")) is None
    assert store.principals_for(key) is None  # the key itself is never what is stored
    (listed,) = store.keys()
    assert (listed.name, listed.principals) == ("ops", ("finance", "hr")) and listed.created_at
    assert key not in repr(listed) and hash_key(key) not in repr(listed)


def test_duplicate_names_are_refused_and_revoking_forgets(store):
    store.add_key("ops", ["a"], hash_key("k1"))
    with pytest.raises(InputError):
        store.add_key("ops", ["b"], hash_key("k2"))
    assert store.principals_for(hash_key("k2")) is None
    assert store.revoke_key("ops") and not store.revoke_key("ops")
    assert store.principals_for(hash_key("k1")) is None and store.keys() == []


def test_new_keys_are_random_and_prefixed():
    keys = {new_key() for _ in range(50)}
    assert len(keys) == 50 and all(k.startswith("tk_") and len(k) > 40 for k in keys)

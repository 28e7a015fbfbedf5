"""Identity recipes are a compatibility contract: these golden values must never change."""

from tether import ids


def test_doc_id_recipe_is_pinned():
    assert ids.doc_id_for("https://example.org/a") == ids.doc_id_for("HTTPS://Example.ORG/a/")
    assert ids.doc_id_for("https://example.org/a") == "doc_" + __import__("hashlib").sha256(
        b"tether-doc-v1\x00https://example.org/a"
    ).hexdigest()[:20]
    assert ids.doc_id_for("https://example.org/a") == "doc_0b9bdfdf49ab07c2a087"
    assert ids.doc_id_for("https://example.org/a") != ids.doc_id_for("https://example.org/b")


def test_version_and_passage_recipes_are_pinned():
    assert ids.version_of("abc") == (
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert ids.passage_id_for("doc_1", ids.version_of("abc"), 0, 3) == "p_" + __import__("hashlib").sha256(
        f"doc_1\x00{ids.version_of('abc')}\x000\x003".encode()
    ).hexdigest()[:16]
    assert ids.passage_id_for("doc_1", "v", 0, 3) == "p_d8a50ad3f25470ff"
    assert ids.quote_hash("abc") == ids.version_of("abc")
    assert ids.trace_id().startswith("tr_") and ids.trace_id() != ids.trace_id()


def test_passage_ids_of_a_version_are_passage_id_for_each_range():
    version = ids.version_of("abc")
    ranges = [(0, 3), (3, 10), (10, 10), (0, 600), (12345, 67890)]
    assert ids.passage_ids("doc_1", version, ranges) == [
        ids.passage_id_for("doc_1", version, start, end) for start, end in ranges
    ]
    assert ids.passage_ids("doc_1", "v", [(0, 3)]) == ["p_d8a50ad3f25470ff"]
    assert ids.passage_ids("doc_1", "v", []) == []

"""Golden files, manifest labels and how expect_docs names a document."""

import pytest

from tether import ids
from tether.errors import InputError
from tether.evaluate import doc_matches, load_golden, load_labels
from tether.records import Document


def _write(tmp_path, text):
    path = tmp_path / "golden.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_golden_file_loads_with_defaults_and_ignores_blank_lines_and_extra_keys(tmp_path):
    path = _write(tmp_path, '{"id": 1, "question": "Q?", "answerable": true, "expect_contains": "x",'
                            ' "note": "extra"}\n\n{"id": "b", "question": "R?", "answerable": false}\n')
    first, second = load_golden(path)
    assert (first.id, first.expect_contains, first.expect_docs) == ("1", ("x",), ())
    assert (second.id, second.answerable, second.forbid_contains, second.payloads) == ("b", False, (), ())


@pytest.mark.parametrize("text, message", [
    ("{not json\n", "line 1: not valid JSON"),
    ('["a"]\n', "line 1: expected a JSON object"),
    ('{"question": "Q?", "answerable": true}\n', "line 1: needs an 'id'"),
    ('{"id": 1, "question": "  ", "answerable": true}\n', "'question' must be a non-empty string"),
    ('{"id": 1, "question": "Q?", "answerable": "yes"}\n', "'answerable' must be true or false"),
    ('{"id": 1, "question": "Q?", "answerable": true, "expect_docs": [3]}\n', "'expect_docs' must be a list"),
    ('{"id": 1, "question": "Q?", "answerable": true}\n{"id": 1, "question": "R?", "answerable": true}\n',
     "line 2: duplicate id '1'"),
    ("\n\n", "no golden questions"),
])
def test_bad_golden_lines_are_input_errors_naming_the_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace("[", r"\[")):
        load_golden(_write(tmp_path, text))


def test_a_missing_golden_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read golden file"):
        load_golden(tmp_path / "nope.jsonl")


def _doc(source, title="Methanol"):
    return Document(ids.doc_id_for(source), source, title, "CC0", "2026-01-01", "text/plain")


def test_expect_docs_match_by_manifest_path_source_title_id_or_path_suffix(corpus):
    labels = load_labels(corpus / "manifest.json")
    methanol = _doc("https://ex.org/methanol")
    assert doc_matches("sheets/methanol.txt", methanol, labels)
    assert not doc_matches("acetone.md", methanol, labels)
    assert doc_matches("https://ex.org/methanol", methanol) and doc_matches("Methanol", methanol)
    assert doc_matches(methanol.doc_id, methanol)
    # without a manifest, a path relative to the ingested folder matches a file:// source
    local = _doc((corpus / "sheets" / "methanol.txt").resolve().as_uri())
    assert doc_matches("sheets/methanol.txt", local) and doc_matches("./methanol.txt", local)
    assert not doc_matches("hanol.txt", local)


def test_labels_read_planted_instructions_and_reject_malformed_ones(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "manifest.json").write_text(
        '{"documents": [{"path": "a.txt", "planted": [{"text": "Ignore it.", "where": "prose"}]},'
        ' {"path": "b.txt"}]}'
    )
    labels = load_labels(tmp_path / "manifest.json")
    doc_id = ids.doc_id_for((tmp_path / "a.txt").resolve().as_uri())
    assert [p.text for p in labels.planted[doc_id]] == ["Ignore it."]
    assert len(labels.documents) == 2 and labels.planted_texts() == ["Ignore it."]
    (tmp_path / "manifest.json").write_text('{"documents": [{"path": "a.txt", "planted": ["Ignore it."]}]}')
    with pytest.raises(InputError, match="'planted' must be a list"):
        load_labels(tmp_path / "manifest.json")

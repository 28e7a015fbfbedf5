"""A single line break inside a paragraph (a hard wrap) reads as a space; a blank line,
a heading, a table row, a list item, a line set in columns or one ending in a colon
still ends a unit. Sentences stay exact ranges of the text (ADR 0043)."""

from __future__ import annotations

from tether.text.sentences import sentence_ranges, split_sentences


def _exact(text: str) -> list[str]:
    found = [text[lo:hi] for lo, hi in sentence_ranges(text)]
    assert found == split_sentences(text)
    return [" ".join(piece.split()) for piece in found]


def test_a_wrap_before_a_lower_case_word_joins_the_lines() -> None:
    text = ("You can test the settings file\n    without restarting the daemon by running\n"
            "    checkconf or the -n flag\n    instead.\nThen restart it.")
    assert _exact(text) == [
        "You can test the settings file without restarting the daemon by running checkconf "
        "or the -n flag instead.", "Then restart it."]


def test_a_line_ending_in_a_word_that_leaves_its_clause_open_joins_the_next() -> None:
    text = "Paths are read from any of the files named with\nPathList\nor PathDir.\nDone here."
    assert _exact(text) == ["Paths are read from any of the files named with PathList or PathDir.",
                            "Done here."]


def test_units_that_end_a_line_still_end_a_sentence() -> None:
    assert _exact("## Cache size\nthe cache holds pages.") == [
        "## Cache size", "the cache holds pages."]
    assert _exact("| name | size |\nrows follow.") == ["| name | size |", "rows follow."]
    assert _exact("DESCRIPTION\n       pump reads a file.") == ["DESCRIPTION", "pump reads a file."]
    assert _exact("Examples:\nrate = 4") == ["Examples:", "rate = 4"]
    assert _exact("Values:\n\tread()\t\treads a block\n\twrite()\t\twrites one") == [
        "Values:", "read() reads a block", "write() writes one"]
    assert _exact("Short title\nAnother line starts here.") == [
        "Short title", "Another line starts here."]
    assert _exact("A paragraph ends\n\nthe next one starts.") == [
        "A paragraph ends", "the next one starts."]


def test_a_sentence_end_before_a_wrap_still_ends_the_sentence() -> None:
    assert _exact("The pump stops.\nthen the valve closes.") == [
        "The pump stops.", "then the valve closes."]


def test_a_megabyte_line_and_a_lower_case_line_after_it_stay_bounded() -> None:
    line = "word " * 200_000
    text = line + "\nmore words follow here\nand end."
    ranges = sentence_ranges(text)
    assert all(hi - lo <= 2_000 for lo, hi in ranges)
    assert ranges[-1][1] == len(text)
    assert all(text[lo:hi].strip() == text[lo:hi] for lo, hi in ranges)

"""Packaging as the README presents it: the extras, the ``all`` extra, the first lines."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
NOT_RUNTIME = {"all", "test"}


def _extras() -> dict[str, list[str]]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        extras: dict[str, list[str]] = tomllib.load(f)["project"]["optional-dependencies"]
    return extras


def test_all_is_every_runtime_extra_and_no_test_tool():
    extras = _extras()
    runtime = {req for name, reqs in extras.items() if name not in NOT_RUNTIME for req in reqs}
    assert set(extras["all"]) == runtime
    assert len(extras["all"]) == len(set(extras["all"]))
    assert not {"pytest>=8", "hypothesis>=6.100", "playwright>=1.40"} & set(extras["all"])


def test_the_test_extra_installs_every_runtime_dependency():
    # The suite exercises every extra; a runtime package missing here skips or breaks tests.
    extras = _extras()
    assert set(extras["all"]) <= set(extras["test"])


def test_readme_opens_with_title_sentence_then_the_two_command_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Tether"
    assert lines[1] == "" and lines[2].endswith(".") and lines[3] == ""
    assert lines[4:8] == [
        "```",
        "pip install . && tether demo",
        "pip install -e '.[test]' && python -m pytest",
        "```",
    ]


def test_every_extra_is_shown_in_both_install_forms():
    text = README.read_text(encoding="utf-8")
    for name in _extras():
        if name == "test":
            assert "pip install -e '.[test]'" in text
            continue
        row = re.search(rf"^\| `{name}` \|.*$", text, re.M)
        assert row, f"the README's extras table has no row for {name!r}"
        assert f"pip install '.[{name}]'" in row.group(0) and f"pip install 'tether[{name}]'" in row.group(0)
    named = set(re.findall(r"pip install (?:-e )?'(?:tether|\.)\[([\w,-]+)\]'", text))
    assert named <= set(_extras()), f"the README installs extras that do not exist: {named - set(_extras())}"

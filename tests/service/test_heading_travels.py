"""A heading path written at ingest reaches every face: the stored passage, the
citation of an answer (CLI JSON and text), and the service's sources event."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tether import Tether
from tether.config import Settings

GUIDE = """\
# Solvent handling

## Gloves

Butyl gloves are required for acetone.

## Storage

Acetone is stored in a flammables cabinet.
"""

PATH = ["Solvent handling", "Gloves"]


def _tether(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tether", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_cli_ingests_and_cites_with_the_heading_path(tmp_path: Path) -> None:
    doc = tmp_path / "solvents.md"
    doc.write_text(GUIDE, encoding="utf-8")
    db = str(tmp_path / "store.db")
    assert _tether("ingest", str(doc), "--db", db).returncode == 0
    done = _tether("ask", "Which gloves are required for acetone?", "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    cited = [c for s in answer["sentences"] for c in s["citations"]]
    assert cited and all(c["heading"] == PATH for c in cited), cited
    shown = _tether("ask", "Which gloves are required for acetone?", "--db", db)
    assert "in Solvent handling › Gloves" in shown.stdout


def test_the_sources_event_carries_heading_and_other_places(tmp_path: Path, client_for) -> None:
    first, second = tmp_path / "solvents.md", tmp_path / "copy" / "solvents-all.md"
    second.parent.mkdir()
    first.write_text(GUIDE, encoding="utf-8")
    second.write_text(GUIDE, encoding="utf-8")  # the same page twice, as an all-in-one page
    with Tether(tmp_path / "store.db", settings=Settings()) as tether:
        tether.ingest(first)
        tether.ingest(second)
        reply = client_for(tether).post(
            "/v1/answers", json={"question": "Which gloves are required for acetone?", "stream": True})
    assert reply.status_code == 200, reply.text
    events = dict((k, json.loads(d)) for k, d in re.findall(r"event: (\w+)\ndata: (.*)\n\n", reply.text))
    passages = events["sources"]["passages"]
    gloves = [p for p in passages if "Butyl" in p["text"]]
    assert len(gloves) == 1, passages  # the copy collapsed into one source ...
    assert gloves[0]["heading"] == PATH
    assert len(gloves[0]["also"]) == 1  # ... that says where else it stands
    assert {gloves[0]["source"], *gloves[0]["also"]} == {first.resolve().as_uri(), second.resolve().as_uri()}

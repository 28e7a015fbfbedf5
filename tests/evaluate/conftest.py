from pathlib import Path

import pytest

from tether import Tether
from tether.config import Settings

METHANOL = (
    "Methanol boils at 64.7 °C at sea level. Methanol is toxic when swallowed. "
    "The OASB 8-hour limit for methanol is 200 ppm."
)
ACETONE = "# Acetone\n\nAcetone has a flash point of -20 °C. Acetone vapour is heavier than air.\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sheets").mkdir(parents=True)
    (root / "sheets" / "methanol.txt").write_text(METHANOL)
    (root / "acetone.md").write_text(ACETONE)
    (root / "manifest.json").write_text(
        '{"documents": ['
        '{"path": "sheets/methanol.txt", "source": "https://ex.org/methanol", "title": "Methanol"},'
        '{"path": "acetone.md", "source": "https://ex.org/acetone", "title": "Acetone",'
        ' "planted": []}]}'
    )
    return root


@pytest.fixture
def tether(tmp_path: Path, corpus: Path):
    from tether.ingest.files import load_manifest

    t = Tether(tmp_path / "t.db", settings=Settings())
    entries = load_manifest(corpus / "manifest.json")
    for path in sorted(corpus.rglob("*.*")):
        if path.suffix in (".txt", ".md"):
            t.ingest(path, **{k: v for k, v in entries[path.resolve()].items() if k != "path"})
    yield t
    t.close()

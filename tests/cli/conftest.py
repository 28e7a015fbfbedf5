import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Run:
    code: int
    out: str
    err: str


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with this checkout's tether first on the path."""
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"), **(extra or {})}


def run_tether(*args: str, stdin: str | None = None, cwd: Path | None = None, timeout: float = 120,
               env: dict[str, str] | None = None) -> Run:
    """The real CLI in a subprocess: exit codes, stdout and stderr as a user sees them
    (``env``: variables set beside this process's own)."""
    proc = subprocess.run(
        [sys.executable, "-m", "tether", *args], input=stdin, capture_output=True, text=True,
        cwd=cwd, env=cli_env(env), timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def tether_cli():
    return run_tether


def make_pdf(path: Path, pages: list[str]) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    pdf.output(str(path))


@pytest.fixture
def mixed_folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "acetone.md").write_text(
        "# Acetone\n\nAcetone has a flash point of -20 °C. It is not safe near open flames.\n"
    )
    (root / "sub" / "ammonia.txt").write_text(
        "Ammonia is a colourless gas with a sharp smell. The workplace limit for ammonia is 25 ppm.\n"
    )
    (root / "sub" / "chlorine.html").write_text(
        "<html><head><title>Chlorine</title></head><body><nav>Home | About</nav>"
        "<article><h1>Chlorine</h1><p>Chlorine gas is greenish-yellow and heavier than air. "
        "The short-term limit for chlorine is 1 ppm over 15 minutes.</p></article>"
        "<footer>Copyright</footer></body></html>"
    )
    make_pdf(root / "toluene.pdf", [
        "Toluene is a clear liquid used as a solvent. Toluene boils at 110.6 degrees Celsius.",
        "Toluene vapour is heavier than air. Toluene must never be stored with nitric acid.",
    ])
    return root

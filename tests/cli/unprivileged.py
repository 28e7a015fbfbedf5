"""Running the CLI as a user that file permissions apply to.

Tests that need an unreadable folder or a read-only store must not pass by accident
when the suite runs as root (root reads a mode-000 folder): as root, the command runs
under ``setpriv`` without the two capabilities that bypass file permissions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import cli_env

_DROP = "-dac_override,-dac_read_search"


def unprivileged_prefix(scratch: Path) -> list[str]:
    """The argv prefix under which a mode-000 folder cannot be read (checked), or skip."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        prefix = [setpriv, f"--inh-caps={_DROP}", f"--bounding-set={_DROP}"]
    locked = scratch / "permission-probe"
    locked.mkdir()
    os.chmod(locked, 0)
    try:
        probe = subprocess.run([*prefix, "ls", str(locked)], capture_output=True)
    finally:
        os.chmod(locked, 0o755)
    if probe.returncode == 0:
        pytest.skip("file permissions are not enforced here (no way to drop them)")
    return prefix


def run_unprivileged(prefix: list[str], *args: str, timeout: float = 120) -> tuple[int, str, str]:
    """``python -m tether ARGS`` under ``prefix``: (exit code, stdout, stderr)."""
    proc = subprocess.run([*prefix, sys.executable, "-m", "tether", *args], capture_output=True,
                          text=True, env=cli_env(), timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr

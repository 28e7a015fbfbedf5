"""Run the ``tether`` entry point as a user would: exit code, stdout, stderr."""

from __future__ import annotations

from click.testing import CliRunner

from tether.cli import main


def run(*args: str, input: str = "") -> tuple[int, str, str]:
    streams = CliRunner().isolation(input=input)
    with streams as captured:
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    out, err = captured[0], captured[1]
    return code, out.getvalue().decode(), err.getvalue().decode()

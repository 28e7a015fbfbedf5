"""A command run as in a terminal, and Ctrl-C typed into it (Linux).

The command leads a session of its own whose controlling terminal is a pty. Writing
Ctrl-C (0x03) to the pty's master makes the kernel's line discipline send SIGINT to
the terminal's foreground process group: the command and every process it started
that stayed in its group (its workers), as a user's terminal does. No fixed sleep:
Ctrl-C is typed once ``ready`` says so, from what the terminal showed and which
processes are below the command.

    >>> run = interrupt(["-m", "tether", "serve"], ready=lambda shown, below: "serving" in shown)  # doctest: +SKIP
    >>> problems(run)  # doctest: +SKIP
    []
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from proctree import alive, descendants

# Run first in the command's process, then replaced by the command itself (same pid):
# the pty becomes the session's controlling terminal, and Ctrl-C is delivered as to a
# foreground command even where this test runner was started with SIGINT ignored or
# blocked (a shell without job control hands that to its background jobs).
_LAUNCH = ("import fcntl, os, signal, sys, termios; "
           "fcntl.ioctl(2, termios.TIOCSCTTY, 0); "
           "signal.signal(signal.SIGINT, signal.SIG_DFL); "
           "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
           "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]")
Ready = Callable[[str, set[int]], bool]  # (what the terminal showed, the pids below) -> type Ctrl-C now


@dataclass
class Interrupted:
    code: int | None  # exit status; None: still running at the deadline (then killed)
    shown: str  # everything the terminal showed, escape sequences removed
    typed: bool  # whether Ctrl-C was typed (False: the command ended before it was ready)
    below: set[int] = field(default_factory=set)  # the processes below it at Ctrl-C
    left: set[int] = field(default_factory=set)  # its session's processes still running after it

    @property
    def lines(self) -> list[str]:
        """The lines the terminal shows at the end (a progress bar's redraws, each
        ended by a carriage return, and the echoed ``^C`` are no line of their own)."""
        return [text for line in self.shown.replace("\r\n", "\n").split("\n")
                if (text := line.rsplit("\r", 1)[-1].replace("^C", "").strip())]


def interrupt(argv: list[str], *, ready: Ready, env: dict[str, str], cwd: Path | None = None,
              stdin: IO[bytes] | None = None, timeout: float = 180) -> Interrupted:
    """``python *argv`` in a terminal, Ctrl-C typed once ``ready`` holds; then its
    output to the end, its exit status, and whether any process of its session is
    left running (waited for, generously: a worker is killed by its parent-death
    signal a moment after its parent ends)."""
    master, slave = os.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-c", _LAUNCH, *argv], stdin=stdin or slave,
                                   stdout=slave, stderr=slave, env=env, cwd=cwd,
                                   start_new_session=True)
    finally:
        os.close(slave)
    shown = bytearray()
    below: set[int] = set()
    typed = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not typed and process.poll() is None:
                now_below = descendants(process.pid)
                if ready(_text(shown), now_below):
                    below = now_below
                    os.write(master, b"\x03")
                    typed = True
            if not _read(master, shown, wait=0.02):
                break  # every writer of the terminal has closed it
        try:
            code: int | None = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
        left = _session(process.pid)
        until = time.monotonic() + 30
        while left and time.monotonic() < until:
            time.sleep(0.05)
            left = _session(process.pid)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return Interrupted(code, _text(shown), typed, below, left)


def problems(run: Interrupted, line: str = "error: interrupted") -> list[str]:
    """What is wrong with how ``run`` took Ctrl-C: it must exit 130 with ``line`` as
    the last line shown, no error line before it, no traceback or
    ``KeyboardInterrupt`` from any process, and no process of its session left."""
    found = []
    if not run.typed:
        found.append("ended before it was ready for Ctrl-C")
    if run.code != 130:
        found.append(f"exit status {run.code}, not 130")
    if not run.lines or run.lines[-1] != line:
        found.append(f"last line {run.lines[-1:]!r}, not {line!r}")
    errors = [text for text in run.lines if text.startswith("error:")]
    if len(errors) > 1:
        found.append(f"{len(errors)} error lines: {errors!r}")
    for word in ("Traceback", "KeyboardInterrupt", "Exception ignored"):
        if word in run.shown:
            found.append(f"{word!r} shown")
    if run.left:
        found.append(f"processes left running: {sorted(run.left)}")
    return found


def _read(master: int, into: bytearray, *, wait: float) -> bool:
    """Whatever the terminal shows within ``wait`` seconds; False once it is closed."""
    if select.select([master], [], [], wait)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: no process holds the terminal any more
            return False
        if not chunk:
            return False
        into += chunk
    return True


def _text(shown: bytearray) -> str:
    return _ESCAPE.sub("", shown.decode("utf-8", "replace"))


def _session(leader: int) -> set[int]:
    """The running processes of ``leader``'s session (any it left behind stayed in it,
    even once reparented)."""
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit() and alive(int(name)):
            try:
                with open(f"/proc/{name}/stat", encoding="ascii") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == leader:
                found.add(int(name))
    return found


def parent(pid: int) -> int:
    """Process ``pid``'s parent (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def cmdline(pid: int) -> bytes:
    """How process ``pid`` was started (empty once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as line:
            return line.read()
    except OSError:
        return b""

"""Processes below a test's process, read from Linux /proc: which are there, whether
one is still running, and the CPU time they spent."""

from __future__ import annotations

import os


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:  # gone meanwhile
        return None


def descendants(pid: int) -> set[int]:
    """The live processes below ``pid``."""
    parents = {int(n): int(f[1]) for n in os.listdir("/proc") if n.isdigit()
               if (f := _stat(int(n))) is not None}
    found: set[int] = set()
    todo = [pid]
    while todo:
        current = todo.pop()
        for child, parent in parents.items():
            if parent == current and child not in found:
                found.add(child)
                todo.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid``, of every live process below it (the
    service forks heavy work into children of its forkserver) and of the children they
    have reaped, from /proc/PID/stat (fields 14-17; field 4 is the parent)."""
    stats = {int(name): _stat(int(name)) for name in os.listdir("/proc") if name.isdigit()}
    children: dict[int, list[int]] = {}
    for child, fields in stats.items():
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(child)
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        fields = stats.get(current)
        if fields is not None:  # its own time and that of the children it has reaped
            total += sum(int(v) for v in fields[11:15])
        todo.extend(children.get(current, ()))
    return total / os.sysconf("SC_CLK_TCK")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended and not yet reaped, does not)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"

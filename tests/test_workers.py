"""``tether.workers.forked_map``: the serial result, in order, from forked workers; errors
and dead workers come back as errors, and no worker outlives the call."""

import multiprocessing
import os
import signal

import pytest

from tether.errors import LimitExceeded, TetherError
from tether.workers import forked_map


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_results_come_back_in_order_from_every_worker():
    out = forked_map(_square_and_pid, list(range(101)), workers=3)
    assert [v for v, _ in out] == [x * x for x in range(101)]
    pids = {pid for _, pid in out}
    assert len(pids) == 3 and os.getpid() not in pids
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("workers, items", [(1, 5), (4, 1), (0, 3)])
def test_one_worker_or_one_item_stays_in_this_process(workers, items):
    out = forked_map(_square_and_pid, list(range(items)), workers=workers)
    assert [v for v, _ in out] == [x * x for x in range(items)]
    assert {pid for _, pid in out} <= {os.getpid()}


def _refuse_seven(x: int) -> int:
    if x == 7:
        raise LimitExceeded("seven is over the limit", hint="send six")
    return x


def test_an_error_in_a_worker_is_raised_as_it_was():
    with pytest.raises(LimitExceeded) as caught:
        forked_map(_refuse_seven, list(range(20)), workers=2)
    assert str(caught.value) == "seven is over the limit (send six)"
    assert multiprocessing.active_children() == []


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # pickle calls it with one argument
        super().__init__(f"{a}-{b}")


def _raise_unpicklable(x: int) -> int:
    if x == 3:
        raise _Unpicklable(1, 2)
    return x


def test_an_error_that_does_not_pickle_comes_back_as_text():
    with pytest.raises(TetherError, match="_Unpicklable: 1-2"):
        forked_map(_raise_unpicklable, list(range(6)), workers=2)


def _die_on_five(x: int) -> int:
    if x == 5:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
    return x


def test_a_worker_killed_mid_work_is_an_error_and_the_others_are_stopped():
    with pytest.raises(TetherError, match="ended without a result"):
        forked_map(_die_on_five, list(range(10)), workers=2)
    assert multiprocessing.active_children() == []


def test_no_process_to_be_had_means_the_work_is_done_here(monkeypatch):
    # The second fork fails as under a process limit (EAGAIN): the first worker is
    # stopped and this process computes every item.
    context = multiprocessing.get_context("fork")
    real_start, calls = context.Process.start, []

    def start(self):
        calls.append(self)
        if len(calls) == 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        real_start(self)

    monkeypatch.setattr(context.Process, "start", start)
    out = forked_map(_square_and_pid, list(range(9)), workers=3)
    assert [v for v, _ in out] == [x * x for x in range(9)]
    assert {pid for _, pid in out} == {os.getpid()}
    assert multiprocessing.active_children() == []

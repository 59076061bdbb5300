"""Stopping a command on Ctrl-C or SIGTERM (a scheduler's time limit, `kill`) without losing what
it paid for.

`install()` (the command line's entry point) makes SIGTERM stop any command the way Ctrl-C does:
files written under a temporary name are not left behind, worker processes are shut down, job
leases are released, and the exit status is 143 (128 + 15) instead of 130. SIGHUP, SIGUSR1 and
SIGUSR2 (`ALSO_STOPPING`) do what SIGTERM does, with their own names and statuses (129, 138, 140).

While a stage's calls run (`run`), the first Ctrl-C or SIGTERM does not cancel the requests in
flight: no new request starts, those in flight are let finish and are stored (for at most
`grace_s()` seconds: `POEMETRIC_STOP_GRACE`, default 20, under SLURM's default 30 s before
SIGKILL), and then the stage stops. So a resumed run pays for none of them again. A second
signal (either) stops at once, but for the first one again within `REPEAT_WINDOW_S` (not
Ctrl-C): that is one stop delivered twice; a third, should the stage not unwind, raises KeyboardInterrupt
wherever it lands. Outside a stage's calls Ctrl-C behaves as Python's default (and SIGTERM the
same way); Ctrl-C is taken over during a stage only from the command line (`install()`) and
only where it is not ignored (a command started with `&` by a script).

A "call" for this purpose is one request from the moment it is sent until its answer is stored
(`starting_call` ... `call_done`), a batch submission until its id is stored, or a batch's
results until they are stored. A failed request is not retried once a stop began (`requested`),
and a wait before a retry (`pause`) ends at the stop. A local model loading before its first
chunk is not a call: a stop does not wait for it (`unless_stopped`, `poemetric.runner.loading`).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

from poemetric.env_settings import seconds_from_env

if TYPE_CHECKING:  # asyncio is imported when a stage runs: `form check` starts without it
    import asyncio
    from types import FrameType

GRACE_ENV = "POEMETRIC_STOP_GRACE"
DEFAULT_GRACE_S = 20.0
#: The stop signal again this soon is the same stop delivered twice, not a second one (which
#: drops the calls in flight): make passes the SIGTERM it gets on to poemetric, which a
#: scheduler's SIGTERM to every process of the job (or `kill -TERM -PGID`) has reached already.
#: Ctrl-C is a person's, and a second one is meant.
REPEAT_WINDOW_S = 1.0

T = TypeVar("T")


class _State:
    #: The first stop signal received (SIGTERM at any time, Ctrl-C during a stage), or None.
    received: int | None = None
    #: When it was received (time.monotonic()).
    received_at: float = 0.0
    #: The stage whose calls are running now, or None.
    active: _Drain | None = None
    #: Whether `install()` ran: a stage then lets Ctrl-C's calls in flight finish too.
    installed: bool = False
    #: Requests the running (or last) stage gave up on in flight, and why (`dropped_requests`).
    dropped: int = 0
    dropped_because: str = ""


_state = _State()

#: Set when a stage gives up on its calls in flight (the grace ran out, or a second signal):
#: in-process engines (a local model generating in a worker thread, which cancelling the stage
#: cannot stop) check it between steps and end early, so the command stops without first
#: computing answers it will not store.
_abandoned = threading.Event()


def abandoned() -> bool:
    """True once the running stage stopped waiting for its calls in flight: an in-process engine
    should end the work it is doing (its result would not be stored)."""
    return _abandoned.is_set()


#: Stopped as SIGTERM stops a command: a hang-up (the ssh session or terminal gone) and the
#: user signals, which SLURM sends ahead of a time limit (`--signal=B:USR1@60`, `scancel
#: --signal=USR1`). Their default action ended Python at once: the answers in flight (paid
#: for) were lost, the job leases kept, nothing said. One that is ignored stays ignored (nohup
#: ignores SIGHUP).
ALSO_STOPPING = ("SIGHUP", "SIGUSR1", "SIGUSR2")


def install() -> None:
    """Make SIGTERM (and SIGHUP, SIGUSR1, SIGUSR2 unless ignored) stop this process cleanly,
    and Ctrl-C let a stage's calls in flight finish (see the module's doc). Main thread only."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_signal)
        for name in ALSO_STOPPING:
            signum = getattr(signal, name, None)  # none of them on Windows
            if signum is not None and signal.getsignal(signum) is signal.SIG_DFL:
                signal.signal(signum, _on_signal)
        _state.installed = True


def received() -> int | None:
    """The stop signal this process received (SIGTERM, or SIGINT during a stage), or None."""
    return _state.received


def by_signal() -> str:
    """' by SIGTERM' (for "Interrupted by SIGTERM."; ' by SIGUSR1'...) after a stop by a signal
    other than Ctrl-C;
    '' after Ctrl-C or when no signal was received."""
    signum = _state.received
    return "" if signum in (None, signal.SIGINT) else f" by {signal.Signals(signum).name}"


def exit_status(signum: int | None) -> int:
    """The shell's status for a process stopped by `signum` (130 for Ctrl-C, 143 for SIGTERM,
    129 SIGHUP, 138 SIGUSR1, 140 SIGUSR2)."""
    return 128 + (signum or signal.SIGINT)


def grace_s() -> float:
    """Seconds the requests in flight may take to finish after Ctrl-C or SIGTERM (a bad value of
    the variable is a `SettingError`)."""
    return seconds_from_env(GRACE_ENV, DEFAULT_GRACE_S)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if signum == getattr(signal, "SIGHUP", None):
        _leave_a_hung_up_terminal()
    now = time.monotonic()
    if (
        signum == _state.received
        and signum != signal.SIGINT
        and now - _state.received_at < REPEAT_WINDOW_S
    ):
        return  # the same stop, delivered twice (make's SIGTERM and the scheduler's)
    if _state.received is None:
        _state.received, _state.received_at = signum, now
    drain = _state.active
    if drain is not None:
        drain.on_signal(signum)
        return
    raise KeyboardInterrupt  # outside a stage's calls: stop as Ctrl-C does


def _leave_a_hung_up_terminal() -> None:
    """Point stdout and stderr at /dev/null where they are a terminal that hung up (its ssh
    session closed): every write to one fails with EIO, which ended the stop in a traceback
    nobody saw, with status 1 instead of the stop's. A SIGHUP sent with `kill` keeps them."""
    import os
    import select
    import stat

    devnull = None
    try:
        for fd in (1, 2):
            try:
                if not stat.S_ISCHR(os.fstat(fd).st_mode):  # isatty() is False once hung up
                    continue
                poller = select.poll()
                poller.register(fd, select.POLLOUT)
                if not any(event & select.POLLHUP for _, event in poller.poll(0)):
                    continue
                devnull = os.open(os.devnull, os.O_WRONLY) if devnull is None else devnull
                os.dup2(devnull, fd)
            except (OSError, ValueError, AttributeError):  # no poll (Windows), a closed fd
                continue
    finally:
        if devnull is not None:
            os.close(devnull)


class _Drain:
    """The running stage's event loop, its main task and its calls in flight."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], grace: float
    ) -> None:
        import asyncio

        self.loop = loop
        self.task = task
        self.grace = grace
        self.in_flight = 0
        self.draining = False
        self.signals = 0
        self.idle = asyncio.Event()
        self.idle.set()
        #: Set once a stop began: waits between retries (`pause`) end early.
        self.stopping = asyncio.Event()
        self.stopper: asyncio.Task[None] | None = None  # kept: the loop holds tasks weakly

    def on_signal(self, signum: int) -> None:
        # In the signal handler: possibly in the middle of one of the loop's callbacks.
        self.signals += 1
        if self.signals == 1:
            self.loop.call_soon_threadsafe(self._begin, signum)
        elif self.signals == 2:
            second = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
            _abandon(f"a second {second} stopped it at once")
            self.loop.call_soon_threadsafe(self.task.cancel)
        else:  # the loop did not get to the cancellation (a callback that does not return)
            _abandoned.set()
            raise KeyboardInterrupt

    def _begin(self, signum: int) -> None:
        if self.task.done():  # a third signal ended it before the loop got here
            return
        self.draining = True
        self.stopping.set()
        grace = self.grace
        self.stopper = self.loop.create_task(self._stop_when_idle(grace))
        if self.in_flight:
            ctrl_c = signum == signal.SIGINT
            name = "\nCtrl-C" if ctrl_c else signal.Signals(signum).name
            # stderr's reader gone (Ctrl-C stopped `2>&1 | tee log` too): the grace holds all
            # the same, the notice is lost.
            with suppress(OSError):
                print(
                    f"{name}: no new request starts; waiting up to {grace:g} s for the "
                    f"{self.in_flight} in flight to be answered and stored"
                    + (" (Ctrl-C again to stop now)." if ctrl_c else "."),
                    file=sys.stderr,
                    flush=True,
                )

    async def _stop_when_idle(self, grace: float) -> None:
        import asyncio

        with suppress(TimeoutError):
            await asyncio.wait_for(self.idle.wait(), grace)
        _abandon(f"the {grace:g} s grace ran out; {GRACE_ENV} sets a longer one")
        self.task.cancel()


def _abandon(because: str) -> None:
    """Give up on the calls in flight (the first reason given is kept)."""
    if not _abandoned.is_set():
        _state.dropped_because = because
    _abandoned.set()


def request_dropped() -> None:
    """A request to a provider was cancelled in flight: counted when the stage gave up on its
    calls in flight (its answer, which the provider may charge for, is not stored)."""
    if _abandoned.is_set():
        _state.dropped += 1


def dropped_requests() -> tuple[int, str]:
    """The requests the last stage stopped gave up on in flight (the resume asks them again,
    and a provider may charge for them twice), and why: the grace ran out, or a second signal."""
    return _state.dropped, _state.dropped_because


def requested() -> bool:
    """True once a stop (Ctrl-C, SIGTERM) began in the running stage: start no new request,
    nor a retry of one."""
    drain = _state.active
    return drain is not None and drain.draining


async def pause(seconds: float) -> None:
    """`asyncio.sleep(seconds)` that ends early when a stop begins (a wait before a retry,
    which `requested()` then refuses)."""
    import asyncio

    drain = _state.active
    if drain is None:
        await asyncio.sleep(seconds)
        return
    with suppress(TimeoutError):
        await asyncio.wait_for(drain.stopping.wait(), seconds)


async def unless_stopped(future: asyncio.Future[Any]) -> bool:
    """Wait for `future` (work that is not a call: a local model loading) unless a stop
    begins first: True once it is done, False at once when a stop began (`future` is left
    to run). Not counted as in flight: a stop waits for no grace on its account."""
    import asyncio

    drain = _state.active
    if drain is None:
        await future
        return True
    if drain.draining:
        return False
    stop = asyncio.ensure_future(drain.stopping.wait())
    try:
        await asyncio.wait({future, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    return future.done()


def starting_call() -> bool:
    """False once a stop was asked for (leave the job for the next run); else True, and the
    call counts as in flight until `call_done()`."""
    drain = _state.active
    if drain is None:
        return True
    if drain.draining:
        return False
    drain.in_flight += 1
    drain.idle.clear()
    return True


def call_done() -> None:
    """A call begun with `starting_call()` has ended (its answer is stored, or it failed)."""
    drain = _state.active
    if drain is None or drain.in_flight == 0:
        return
    drain.in_flight -= 1
    if drain.in_flight == 0:
        drain.idle.set()


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, stoppable by Ctrl-C and SIGTERM as the module's doc says (a stop
    raises KeyboardInterrupt: also when `main` ended within the grace, its last calls stored and
    the jobs not started left aside, so that the command stops and says how to resume instead
    of reporting a finished stage or starting the next one)."""
    import asyncio

    try:
        grace = grace_s()  # read before any call: a bad value stops nothing halfway
    except ValueError:
        main.close()  # never run
        raise

    async def guarded() -> T:
        task = asyncio.current_task()
        assert task is not None
        _state.active = _Drain(asyncio.get_running_loop(), task, grace)
        try:
            return await main
        finally:
            _state.active = None

    _abandoned.clear()
    _state.dropped, _state.dropped_because = 0, ""
    with _ctrl_c_as_a_stop():
        try:
            result = asyncio.run(guarded())  # its end waits for the worker threads
        except asyncio.CancelledError:
            if _state.received is None:
                raise
            raise KeyboardInterrupt from None
        finally:
            _abandoned.clear()  # for this stage only: engines used after it work again
    if _state.received is not None:
        raise KeyboardInterrupt
    return result


@contextmanager
def _ctrl_c_as_a_stop() -> Iterator[None]:
    """While a stage runs from the command line, Ctrl-C is handled as SIGTERM is (`asyncio.run`
    then installs no handler of its own). Not where Ctrl-C is ignored (a command a script
    started with `&`) or handled by someone else, nor for a library caller."""
    if not (
        _state.installed
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        yield
        return
    signal.signal(signal.SIGINT, _on_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)

"""A reader that stops early (`poemetric models | head`): the command ends quietly.

Python raises `BrokenPipeError` at the next write to a pipe whose reader has gone (it ignores
SIGPIPE), and reports it again when it flushes the stream at exit. Click (inside Typer) turned it
into a silent exit status 1, Rich into `SystemExit(1)`, and a write outside both would end in a
traceback. Every command now ends the same way: the stream is pointed at /dev/null, as the
Python documentation's "Note on SIGPIPE" recommends (nothing more is reported at exit), and the
process exits with status 141 (the Note's example exits 1): 128 + SIGPIPE, the status of git or
coreutils stopped by a closed pipe, which `set -o pipefail` scripts know, and no status of ours
(1 says "jobs left undone, run again").

A background thread that writes progress lines (`poemetric.progress_lines`) only stops writing:
a stage whose log reader went away goes on calling models and storing every answer, and ends
with its own status. So does a command whose stderr alone lost its reader (stdout still read): a
usage error keeps Click's status 2.
"""

from __future__ import annotations

import errno
import importlib.abc
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: The exit status after a write to a closed pipe: 128 + SIGPIPE (13; Windows' `signal` has no
#: SIGPIPE), as a shell reports git's.
EXIT_STATUS = 128 + 13


class OutputClosed(SystemExit):
    """The command's output went to a reader that has gone: exit quietly with `EXIT_STATUS`."""

    def __init__(self) -> None:
        super().__init__(EXIT_STATUS)


def is_closed_pipe(error: BaseException) -> bool:
    """Whether `error` is a write to a pipe whose reader has gone (EPIPE)."""
    return isinstance(error, OSError) and error.errno == errno.EPIPE


def silence(stream: IO[Any] | None = None) -> None:
    """Point `stream`'s file descriptor at /dev/null (None: stdout's and stderr's where they are
    a closed pipe), so that what is still buffered, flushed at exit, goes nowhere instead of
    raising again."""
    streams = [stream] if stream is not None else [sys.stdout, sys.stderr]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for each in streams:
            try:
                fd = each.fileno()
            except (AttributeError, OSError, ValueError):  # no descriptor (a test's capture)
                continue
            if stream is not None or closed_pipe(fd):
                os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def closed_pipe(fd: int) -> bool:
    """Whether `fd` is a pipe (or socket) with no reader left: a write to it fails with EPIPE.
    Where `select.poll` is missing (Windows), any pipe is taken for a closed one."""
    import select
    import stat

    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return False
        if not hasattr(select, "poll"):
            return True
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        gone = select.POLLERR | select.POLLHUP
        return any(event & gone for _, event in poller.poll(0))
    except (OSError, ValueError):
        return False


def output_closed(error: BaseException) -> OutputClosed | None:
    """For `error`, a write to a closed pipe where stdout or stderr is one: those silenced, the
    exception that ends the command with `EXIT_STATUS`; None for any other error (an EPIPE of a
    connection to a server while the terminal is fine is a failure to report)."""
    if not is_closed_pipe(error):
        return None
    if not any(closed_pipe(stream.fileno()) for stream in _standard_streams()):
        return None
    silence()
    return OutputClosed()


def _output_cut(written: IO[Any]) -> bool:
    """Whether a closed pipe at `written` (a console's file, already silenced) cuts the
    command's output: it is not stderr, or stdout is a closed pipe too (`2>&1 | head`). A usage
    error or a warning to a stderr whose reader went away changed a command's own status (2, 0)
    into `EXIT_STATUS`, although what it writes on stdout still reached its reader."""
    try:
        if written.fileno() != sys.__stderr__.fileno():  # type: ignore[union-attr]
            return True
        return closed_pipe(sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):  # no descriptor (a test's capture)
        return True


def _standard_streams() -> list[IO[Any]]:
    found = []
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.fileno()
        except (AttributeError, OSError, ValueError):
            continue
        found.append(stream)
    return found


def install() -> None:
    """Make Rich's consoles end the command as `output_closed` does on a closed pipe, instead of
    Rich's own `SystemExit(1)` (which also pointed stdout at /dev/null when it was stderr that
    closed). In a thread other than the main one (progress lines) the stream is silenced and the
    thread ends quietly: the command goes on. Rich is patched when it is first imported: a
    command that does not use it does not load it."""
    if (console := sys.modules.get("rich.console")) is not None:
        _patch(console.Console)
    elif not any(isinstance(finder, _PatchOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())


def _patch(console_class: type[Console]) -> None:
    def on_broken_pipe(self: Console) -> None:
        self.quiet = True  # this console writes nothing more
        silence(self.file)
        if not _output_cut(self.file):
            return  # stderr's reader alone went away: the command ends with its own status
        if threading.current_thread() is threading.main_thread():
            raise OutputClosed()
        raise SystemExit  # a thread that ends so prints nothing

    console_class.on_broken_pipe = on_broken_pipe  # type: ignore[method-assign]


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when `rich.console` is imported, the module is patched (`_patch`)
    once it is loaded, and the finder leaves `sys.meta_path`."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "rich.console":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        _patch(module.Console)

"""Loading a local model (weights, tokenizer, engine) without holding up a stop.

A local model loads before its first chunk of jobs, which can take minutes for a big one. The
load runs in a background (daemon) thread: PyTorch's loading cannot be interrupted safely
half-way, and the event loop stays free for the other models. A stop (Ctrl-C, SIGTERM) that
begins meanwhile does not wait for it: nothing of that model was generated, so its jobs are
left for the next run, and the stage stops as it would between two chunks. The load goes on in
the background; the command line then ends the process without waiting for it
(`exit_if_loading`), once everything is stored and said.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from contextlib import suppress

from poemetric.providers.base import Provider
from poemetric.providers.batched import InProcessBatchProvider
from poemetric.runner import stopping

log = logging.getLogger(__name__)

_threads: list[threading.Thread] = []


async def loaded_unless_stopped(provider: Provider, name: str) -> bool:
    """Run an in-process engine's `load()` in a background thread: True once it ended (a
    failure included: the chunks meet it again and store it with each job) or for any other
    provider, False as soon as a stop begins (the load goes on in the background; leave the
    model's jobs for the next run)."""
    if not isinstance(provider, InProcessBatchProvider):
        return True
    if stopping.requested():
        return False
    load = provider.load
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def finished() -> None:
        if not done.done():
            done.set_result(None)

    def work() -> None:
        try:
            load()
        except Exception as error:
            log.debug("loading %s failed: %s", name, error)
        finally:
            with suppress(RuntimeError):  # the loop is closed: the stage stopped meanwhile
                loop.call_soon_threadsafe(finished)

    _threads[:] = [thread for thread in _threads if thread.is_alive()]
    thread = threading.Thread(target=work, name=f"poemetric-load-{name}", daemon=True)
    _threads.append(thread)
    thread.start()
    return await stopping.unless_stopped(done)


def still_loading() -> bool:
    """Whether a model load that a stop left behind (or any other) is still running."""
    return any(thread.is_alive() for thread in _threads)


def exit_if_loading(code: int) -> None:
    """End the process now with `code` when a model is still loading in the background (a
    stop came during its load): everything is stored and the message printed, and waiting for
    the load would only delay the exit (minutes), while letting the interpreter shut down under
    a thread inside PyTorch's code can crash it. Nothing happens when no load is running."""
    if not still_loading():
        return
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):
            stream.flush()
    logging.shutdown()
    os._exit(code)

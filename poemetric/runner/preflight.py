"""Models that cannot start, found before a command writes anything.

A provider's `preflight()` says whether a model can run at all (its API key is set, its SDK or
vLLM is installed). The runner asks it before the model's first call, after the stage has
recorded the models it was started with (`merge` names one that then stored nothing); a command
none of whose models can start asks it first (`start_refusals`) and refuses before it writes.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from pathlib import Path

from poemetric.providers.base import ModelSpec, Provider, ProviderError
from poemetric.providers.registry import create_provider, provider_class
from poemetric.providers.remote_common import key_variables
from poemetric.redaction import Redactor, url_credentials
from poemetric.store.db import DB_NAME


def refuse_before_new_store(spec: ModelSpec, run_dir: Path) -> None:
    """For a command about to make a new run store only to hold `spec`'s calls (the probe
    commands' `--run`): a model that cannot start (no API key, no engine) raises its
    `ProviderError` now, so no empty store is left behind. An existing store is left to the
    runner, since answers already stored need no key."""
    if (run_dir / DB_NAME).exists():
        return
    preflight(spec)


def preflight(spec: ModelSpec) -> None:
    """`spec`'s provider created and asked whether it can run (`Provider.preflight()`, its
    `ProviderError` raised), then closed (`aclose`) as the runner closes each provider it made,
    a refused one too: an adapter whose constructor opens a client or starts a thread released
    neither when only asked here."""
    provider = create_provider(spec)
    try:
        provider.preflight()
    finally:
        closed(provider)


def closed(provider: Provider) -> None:
    """`provider.aclose()` run to its end, outside the runner's event loop (in a thread of its
    own where this thread runs one). An exception from it is left to the runner, which reports
    an adapter's failing `aclose` when it runs the model."""

    def close() -> None:
        try:
            asyncio.run(provider.aclose())
        except Exception:  # the runner says it, with the traceback, if it runs the model
            return

    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no loop in this thread (a command): closed here
        close()
        return
    worker = threading.Thread(target=close, name="poemetric-preflight-close")
    worker.start()
    worker.join()


def own_process(spec: ModelSpec) -> bool:
    """Whether the runner runs `spec` in a 'spawn' child of its own (`isolate_process`: vLLM),
    where it is preflighted: asking here would import vLLM in the parent for nothing."""
    return bool(provider_class(spec.provider).isolate_process)


def start_refusals(specs: Iterable[ModelSpec]) -> dict[str, str]:
    """Why each of `specs` whose provider's `preflight()` refuses cannot run, by model name (the
    `ProviderError`'s text, keys and URL logins redacted); the others are left out, and so is a
    third-party adapter that fails otherwise: the runner reports that failure with its file and
    line, and logs its traceback. Each provider asked is closed (`preflight`)."""
    refusals: dict[str, str] = {}
    for spec in specs:
        try:
            preflight(spec)
        except ProviderError as error:
            refusals[spec.name] = refusal_text(spec, error)
        except Exception:
            continue
    return refusals


def refusal_text(spec: ModelSpec, error: ProviderError) -> str:
    """`error`'s text with `spec`'s keys and URL login redacted, as the runner's lines are: a
    third-party adapter's refusal may quote them."""
    return Redactor(key_variables(spec), logins=url_credentials(spec.base_url))(str(error))

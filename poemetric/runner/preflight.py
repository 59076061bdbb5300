"""Models that cannot start, found before a command writes anything.

A provider's `preflight()` says whether a model can run at all (its API key is set, its SDK or
vLLM is installed). The runner asks it before the model's first call, after the stage has
recorded the models it was started with (`merge` names one that then stored nothing); a command
none of whose models can start asks it first (`start_refusals`) and refuses before it writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from poemetric.providers.base import ModelSpec, ProviderError
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
    create_provider(spec).preflight()


def own_process(spec: ModelSpec) -> bool:
    """Whether the runner runs `spec` in a 'spawn' child of its own (`isolate_process`: vLLM),
    where it is preflighted: asking here would import vLLM in the parent for nothing."""
    return bool(provider_class(spec.provider).isolate_process)


def start_refusals(specs: Iterable[ModelSpec]) -> dict[str, str]:
    """Why each of `specs` whose provider's `preflight()` refuses cannot run, by model name (the
    `ProviderError`'s text, keys and URL logins redacted); the others are left out, and so is a
    third-party adapter that fails otherwise: the runner reports that failure with its file and
    line, and logs its traceback."""
    refusals: dict[str, str] = {}
    for spec in specs:
        try:
            create_provider(spec).preflight()
        except ProviderError as error:
            redact = Redactor(key_variables(spec), logins=url_credentials(spec.base_url))
            refusals[spec.name] = redact(str(error))
        except Exception:
            continue
    return refusals

"""A batch status poll answered 404 or 410: the provider knows no such batch under this key.

A provider answers a batch submitted with another key the same way (OpenAI does, for another
project's key), and listing this key's batches succeeds without it in both cases: the runner
cannot tell a batch deleted from one this key cannot see. Abandoning it by itself could buy
its jobs twice, so the model stops after that one poll (404 is not retried), and the line says
what to do: restore the key that submitted it, or give the batch up with the exact command.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from poemetric.providers.base import ModelSpec
from poemetric.providers.remote_common import key_variables

#: A status poll answered with these: no batch of that id for this key.
UNKNOWN_STATUSES = (404, 410)


def unknown_batch_advice(spec: ModelSpec, batch_id: str, run_dir: Path) -> str:
    """What to do about `batch_id`, which the provider does not know under the model's key
    (appended to the line that says why the model stopped)."""
    where = " or ".join(key_variables(spec)) or "the model's key variable"
    command = f"poemetric batches abandon {shlex.quote(batch_id)} --run {shlex.quote(str(run_dir))}"
    return (
        f"; the provider knows no batch {batch_id} for this API key (deleted, or submitted with "
        "another key or project: the same answer), so every run stops here. If the key changed, "
        f"put the one that submitted it back in {where}; else cancel the batch in the provider's "
        f"batch list if it is still there, then give it up with `{command} --force` (the next "
        "run submits its jobs again, paying again)"
    )

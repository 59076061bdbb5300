"""Generation: the model roster, poem extraction, and the batch runner behind `generate`/`judge`.

Public entry points (imported lazily so that `import poemetric.generation.roster` stays light):

- `run_generation(store, specs, *, options) -> StageReport` (`poemetric.generation.stage`)
- `RunnerOptions`, `run_stage` (`poemetric.generation.runner`)
- `StageReport`, `ModelReport` (`poemetric.generation.report`)
- `Shard`, `cache_key` (`poemetric.generation.jobs`)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "run_generation": "poemetric.generation.stage",
    "RunnerOptions": "poemetric.generation.runner",
    "run_stage": "poemetric.generation.runner",
    "StageReport": "poemetric.generation.report",
    "ModelReport": "poemetric.generation.report",
    "Shard": "poemetric.generation.jobs",
    "cache_key": "poemetric.generation.jobs",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'poemetric.generation' has no attribute {name!r}")

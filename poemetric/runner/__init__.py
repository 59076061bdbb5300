"""The batch runner shared by every stage that calls models (generation, judging, probes).

Public entry points (imported lazily so that importing one submodule stays light):

- `RunnerOptions`, `run_stage`, `register_target` (`poemetric.runner.runner`)
- `StageReport`, `ModelReport` (`poemetric.runner.report`)
- `Job`, `Shard`, `cache_key` (`poemetric.runner.jobs`)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "RunnerOptions": "poemetric.runner.runner",
    "run_stage": "poemetric.runner.runner",
    "register_target": "poemetric.runner.runner",
    "StageReport": "poemetric.runner.report",
    "ModelReport": "poemetric.runner.report",
    "Job": "poemetric.runner.jobs",
    "Shard": "poemetric.runner.jobs",
    "cache_key": "poemetric.runner.jobs",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'poemetric.runner' has no attribute {name!r}")

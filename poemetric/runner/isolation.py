"""Running one model in its own process: providers with `isolate_process` (vLLM) run in a fresh
'spawn' child, so that their GPU memory is freed when it exits.

The parent's `run_stage` calls `spawn_isolated` with the stage's child entry; the child entry
(usually `partial(rerun_in_child, stage=run_x, ...)`) registers the parent's provider class in
the child (`register_target`) and runs the stage there for that one model.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import provider_class
from poemetric.runner.report import ModelReport, StageReport
from poemetric.store.db import RunStore

if TYPE_CHECKING:
    from poemetric.runner.runner import ChildEntry, RunnerOptions


def provider_target(spec: ModelSpec) -> str:
    cls = provider_class(spec.provider)
    return f"{cls.__module__}:{cls.__qualname__}"


def spawn_isolated(
    entry: ChildEntry, store: RunStore, spec: ModelSpec, options: RunnerOptions
) -> ModelReport:
    """Run one model in a fresh 'spawn' child process (its GPU memory is freed on exit)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes=1, maxtasksperchild=1) as pool:
        result = pool.apply(
            entry,
            (str(store.run_dir), spec.model_dump(mode="json"), options, provider_target(spec)),
        )
    return ModelReport.from_dict(result)


def report_in_child(
    run_dir: str,
    spec_data: dict[str, Any],
    target: str,
    run_one: Callable[[RunStore, ModelSpec], StageReport],
) -> dict[str, Any]:
    """The body of a stage's child entry: rebuild the spec, make its provider class available,
    run the stage for that one model on the run store, and return its report as a dict."""
    spec = ModelSpec.model_validate(spec_data)
    register_target(spec.provider, target)
    with RunStore(run_dir) as store:
        report = run_one(store, spec)
    model = report.models[0] if report.models else ModelReport(spec.name, spec.provider)
    return model.to_dict()


def rerun_in_child(
    run_dir: str,
    spec_data: dict[str, Any],
    options: RunnerOptions,
    target: str,
    *,
    stage: Callable[..., StageReport],
    **stage_options: Any,
) -> dict[str, Any]:
    """A stage's child entry, `partial(rerun_in_child, stage=run_x, **its options)`: runs
    `stage(store, spec, options=options, **stage_options)` for the one model in the child."""

    def run_one(store: RunStore, spec: ModelSpec) -> StageReport:
        return stage(store, spec, options=options, **stage_options)

    return report_in_child(run_dir, spec_data, target, run_one)


def register_target(name: str, target: str) -> None:
    """In a child process: make the parent's provider class available under its name."""
    import importlib

    from poemetric.providers.registry import register_provider

    module_name, _, qualname = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    register_provider(name, obj)

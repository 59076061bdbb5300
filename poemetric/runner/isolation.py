"""Running one model in its own process: providers with `isolate_process` (vLLM) run in a fresh
'spawn' child, so that their GPU memory is freed when it exits.

The parent's `run_stage` calls `spawn_isolated` with the stage's child entry; the child entry
(usually `partial(rerun_in_child, stage=run_x, ...)`) registers the parent's provider class in
the child (`register_target`) and runs the stage there for that one model.
"""

from __future__ import annotations

import multiprocessing
import pickle
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
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


#: Seconds a model's process that has reported may take to exit before it is terminated.
EXIT_GRACE_S = 60.0
#: Seconds between looks at whether a model's process that has not reported is still alive.
_EXIT_CHECK_S = 0.5


def spawn_isolated(
    entry: ChildEntry, store: RunStore, spec: ModelSpec, options: RunnerOptions
) -> ModelReport:
    """Run one model in a fresh 'spawn' child process (its GPU memory is freed on exit).

    Not a `multiprocessing.Pool` worker: those are daemonic, and a daemonic process may start
    no process of its own, which vLLM's engine does (its V1 engine core, its tensor-parallel
    workers). The child sends its report, or its exception, back through a pipe; a child that
    dies without either (killed, a crash in native code) leaves the model not run, with its exit
    code, and the stage goes on to the next model."""
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    arguments = (str(store.run_dir), spec_for_child(spec), options, provider_target(spec))
    child = context.Process(target=_child_main, args=(sending, entry, arguments), daemon=False)
    child.start()
    sending.close()  # the child's is the sending end (and any process it forks: `_report`)
    try:
        reported = _report(receiving, child)
    except BaseException:  # a stop in this process: the child goes too, as a Pool's did
        child.terminate()
        child.join()
        raise
    finally:
        receiving.close()
    if reported is None:  # a Pool's `apply` waited for ever
        child.join()
        return ModelReport(
            spec.name,
            spec.provider,
            not_run=f"its process ended (exit code {child.exitcode}) before it reported: a "
            "crash (e.g. of the GPU engine) or a kill; what it stored is kept and the rest "
            "stays pending for the next run",
            stopped_mid_run=True,
        )
    succeeded, value, where = reported
    child.join(EXIT_GRACE_S)
    if child.is_alive():  # reported, but its teardown hangs (a thread or process left behind)
        child.terminate()
        child.join()
    if not succeeded:
        raise value from ChildTraceback(where)
    return ModelReport.from_dict(value)


#: The key of `spec_for_child` that carries what the roster noted of a spec beyond its settings.
_NOTED = "__noted__"


def spec_for_child(spec: ModelSpec) -> dict[str, Any]:
    """`spec` as data for the model's process, with what the roster noted of it (its model
    file, where its key is asked for), which `model_dump` leaves out: the child's warnings then
    name the file as the parent's do, and the parent does not add its own a second time."""
    return {**spec.model_dump(mode="json"), _NOTED: dict(spec.__pydantic_private__ or {})}


def spec_in_child(data: dict[str, Any]) -> ModelSpec:
    """The spec `spec_for_child` gave, in the model's process."""
    fields = dict(data)
    noted = fields.pop(_NOTED, {})
    spec = ModelSpec.model_validate(fields)
    for name, value in noted.items():
        setattr(spec, name, value)
    return spec


def _report(receiving: Connection, child: BaseProcess) -> tuple[bool, Any, str] | None:
    """What the child sent, or None when it ended without sending. Its end is seen by its exit
    status, not by the pipe's end (nor `child.sentinel`'s), which a process the child forked
    holds open: vLLM's engine core, which outlives a killed parent (vLLM issues #34643,
    #55510)."""
    while not receiving.poll(_EXIT_CHECK_S) and child.is_alive():
        pass
    if not receiving.poll():  # ended, nothing sent
        return None
    try:
        sent: tuple[bool, Any, str] = receiving.recv()
    except EOFError:  # ended, and no other process holds the pipe open
        return None
    return sent


def _child_main(sending: Connection, entry: ChildEntry, arguments: tuple[Any, ...]) -> None:
    """The child process: run `entry`; send back `(True, report, "")`, or `(False, exception,
    its traceback)` (an exception that cannot travel between processes as a RuntimeError)."""
    try:
        outcome: tuple[bool, Any, str] = (True, entry(*arguments), "")
    except BaseException as error:
        where = "".join(traceback.format_exception(error))
        try:
            pickle.loads(pickle.dumps(error))
            outcome = (False, error, where)
        except Exception:
            outcome = (False, RuntimeError(f"{type(error).__name__}: {error}"), where)
    try:
        sending.send(outcome)
    finally:
        sending.close()


class ChildTraceback(Exception):
    """Where an exception raised in the model's process came from (its traceback, as text)."""


def report_in_child(
    run_dir: str,
    spec_data: dict[str, Any],
    target: str,
    run_one: Callable[[RunStore, ModelSpec], StageReport],
) -> dict[str, Any]:
    """The body of a stage's child entry: rebuild the spec, make its provider class available,
    run the stage for that one model on the run store, and return its report as a dict."""
    spec = spec_in_child(spec_data)
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

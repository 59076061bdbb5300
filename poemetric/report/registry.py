"""The list of section builders: `@section(order)` registers one; `section_builders()` returns
them in page order, after importing every module of `poemetric.report.sections` and every
entry point of the `poemetric.report_sections` group (a plug-in's module registers itself)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from importlib.metadata import entry_points

from poemetric.report.model import ReportRun, Section

SectionBuilder = Callable[[ReportRun], Section | None]
ENTRY_POINT_GROUP = "poemetric.report_sections"

_BUILDERS: dict[str, tuple[int, SectionBuilder]] = {}
_loaded = False


def section(order: int) -> Callable[[SectionBuilder], SectionBuilder]:
    """Register a section builder; lower `order` comes first (built-ins use 10-100 in steps of
    10: overview 10, leaderboard 20, dimensions 30, form checks 40, lexical 50, judges 60,
    agreement 70, browser 80, metadata 100)."""

    def register(builder: SectionBuilder) -> SectionBuilder:
        _BUILDERS[f"{builder.__module__}.{builder.__qualname__}"] = (order, builder)
        return builder

    return register


def _load() -> None:
    global _loaded
    if _loaded:
        return
    package = importlib.import_module("poemetric.report.sections")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        entry.load()
    _loaded = True


def section_builders() -> list[SectionBuilder]:
    _load()
    return [builder for _, builder in sorted(_BUILDERS.values(), key=lambda item: item[0])]

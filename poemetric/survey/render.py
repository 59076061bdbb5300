"""Jinja2 environment of the survey pages and sheets: autoescaping everywhere."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every template, whatever its suffix: raters' text is never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["fmt"] = _fmt
    return env


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}f}"

"""Templates (Jinja2, autoescaped: every value from the run is escaped) and number formats."""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from poemetric.tables.cells import fixed


def fmt(value: object, digits: int = 2) -> str:
    """A number for reading: blank for missing, integers without decimals."""
    if value is None:
        return "–"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return fixed(value, digits)
    return str(value)


def ci(mean: object, low: object, high: object, digits: int = 2) -> str:
    """`4.02 [3.91, 4.13]`, or the mean alone when there is no interval."""
    if (
        not isinstance(low, float)
        or not isinstance(high, float)
        or math.isnan(low)
        or math.isnan(high)
    ):
        return fmt(mean, digits)
    return f"{fmt(mean, digits)} [{fmt(low, digits)}, {fmt(high, digits)}]"


def percent(value: object) -> str:
    return "–" if not isinstance(value, float) or math.isnan(value) else f"{100 * value:.0f}%"


def shade(value: object, low: float, high: float) -> str:
    """A background colour for a heat-table cell (light to dark blue as `value` rises)."""
    if not isinstance(value, (int, float)) or math.isnan(float(value)):
        return "background:#f4f4f4"
    t = min(1.0, max(0.0, (float(value) - low) / ((high - low) or 1)))
    lightness = 96 - 46 * t
    return f"background:hsl(210,60%,{lightness:.0f}%);color:{'#fff' if t > 0.65 else '#111'}"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("poemetric.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters |= {"fmt": fmt, "percent": percent}
    env.globals |= {"ci": ci, "shade": shade}
    return env


def render(template: str, **context: Any) -> Markup:
    """Render `templates/<template>` with `context`; the result is safe HTML."""
    return Markup(environment().get_template(template).render(**context))


def json_for_html(value: Any) -> str:
    """JSON that is safe inside <script type="application/json">: `<`, `>`, `&` and the line
    separators are escaped, so a poem containing `</script>` cannot end the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )

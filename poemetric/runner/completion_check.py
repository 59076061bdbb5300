"""What is wrong with what an adapter's `generate`, `generate_batch` or `batch_results` gave
for one request, when it is not a well-formed `Completion`.

The runner stores a completion's text, reasoning and raw response and sums its token counts for
the cost: a `Completion` whose `usage.output_tokens` is None (a service that sent no count, read
as it came) or whose `text` is None ended the whole stage with a TypeError at that sum or an
AttributeError in storing, the answers of the other jobs in flight unstored. Such a value fails
its job alone, as one that is no `Completion` at all does (`poemetric.runner.adapter_bugs`).
"""

from __future__ import annotations

from poemetric.providers.base import Completion, TokenUsage

_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens")
#: Counts that are None where the provider gives no figure (stored as NULL, never summed).
_MAY_BE_UNKNOWN = frozenset({"reasoning_tokens"})


def completion_problem(value: object) -> str | None:
    """None for a well-formed `Completion`; else what the adapter returned, said after
    "provider 'NAME' returned " ("NoneType, not a poemetric.providers.Completion", "a Completion
    whose usage.output_tokens is None, not an int")."""
    if not isinstance(value, Completion):
        return f"{type(value).__name__}, not a poemetric.providers.Completion"
    whose = "a Completion whose"
    if not isinstance(value.text, str):
        return f"{whose} text is {type(value.text).__name__}, not str"
    if value.reasoning is not None and not isinstance(value.reasoning, str):
        return f"{whose} reasoning is {type(value.reasoning).__name__}, not str or None"
    if not isinstance(value.usage, TokenUsage):
        return f"{whose} usage is {type(value.usage).__name__}, not a TokenUsage"
    for name in _COUNTS:
        count = getattr(value.usage, name)
        if count is None and name in _MAY_BE_UNKNOWN:
            continue
        if not isinstance(count, int) or isinstance(count, bool):
            return f"{whose} usage.{name} is {count!r}, not an int"
    if not isinstance(value.raw, dict):
        return f"{whose} raw is {type(value.raw).__name__}, not a dict"
    latency = value.latency_s
    if latency is not None and (not isinstance(latency, int | float) or isinstance(latency, bool)):
        return f"{whose} latency_s is {type(latency).__name__}, not a number or None"
    return None

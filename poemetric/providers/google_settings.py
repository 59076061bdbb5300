"""The settings a `provider: google` model file cannot send as written (`refused_settings`):
keys of `settings.extra` that `GoogleProvider.config` already fills (`extra_keys`), in either
spelling the SDK takes (`max_output_tokens`, `maxOutputTokens`)."""

from __future__ import annotations

from poemetric.providers.base import GenerationSettings
from poemetric.providers.extra_keys import SAMPLING, refused_extra, snake_case

#: The `GenerateContentConfig` fields `GoogleProvider.config` fills itself. `thinking_config`
#: is not among them: a block of its own says more than the typed settings can
#: (`thinking_level` with a budget, `include_thoughts` false), so it is refused only beside them.
SENT_FROM = {
    **SAMPLING,
    "max_output_tokens": "settings.max_tokens",
    "stop_sequences": "settings.stop",
    "system_instruction": "the prompt's system messages",
}


def refusals(settings: GenerationSettings, thinking: bool) -> dict[str, str]:
    """The keys of `settings.extra` that the request already fills, each with why; `thinking`:
    the model file's `thinking: true`, which asks for thoughts (`include_thoughts`)."""
    refused = refused_extra(settings.extra, SENT_FROM, snake_case)
    block = next((key for key in settings.extra if snake_case(key) == "thinking_config"), None)
    typed = [
        name
        for name, given in (
            ("settings.reasoning_budget_tokens", settings.reasoning_budget_tokens is not None),
            ("settings.reasoning_effort", settings.reasoning_effort is not None),
            ("thinking: true", thinking),
        )
        if given
    ]
    if block is not None and typed:
        refused[f"extra.{block}"] = (
            f"a thinking_config block beside {' and '.join(typed)}: the block would replace the "
            "thinking config they make in every request, while the run records them; keep one "
            "(the block's include_thoughts: true asks for thoughts)"
        )
    return refused

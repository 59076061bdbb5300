"""Keys of `settings.extra` that an adapter already sends from a typed setting, or from the model
file and the prompt. `extra` goes into the request last, so such a key replaced (or, the typed
setting unset, bypassed) what the typed setting says in every request, while the run recorded
the typed setting (`extra.temperature: 0.2` beside `temperature: 0.7` was sent as 0.2 and
recorded as 0.7), and slipped past the checks that read the typed setting (an OpenAI reasoning
model's temperature). Each adapter names its keys (`sent_from`) and refuses them in
`refused_settings`: on loading the model file (named with file and line) and before sending.

A key that says more than the typed setting can (Anthropic's `thinking` block, Google's
`thinking_config`) is the adapter's own rule: allowed alone, refused beside the typed setting
it would replace."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

#: How the typed settings go out under their own names (`temperature`, `top_p`, `top_k`,
#: `seed`): most adapters send these as they are.
SAMPLING = {name: f"settings.{name}" for name in ("temperature", "top_p", "top_k", "seed")}


def refused_extra(
    extra: Mapping[str, Any],
    sent_from: Mapping[str, str],
    spelled: Callable[[str], str] = str,
) -> dict[str, str]:
    """`{"extra.KEY": why}` for each key of `extra` the adapter sends itself: `sent_from` maps
    a request field to where it comes from (`settings.max_tokens`, or words such as "the
    prompt's system messages"); `spelled` gives a key as `sent_from` spells it (Google's SDK
    takes `maxOutputTokens` for `max_output_tokens`)."""
    refused: dict[str, str] = {}
    for key in extra:
        field = spelled(key)
        source = sent_from.get(field)
        if source is None:
            continue
        if source.startswith("settings."):
            refused[f"extra.{key}"] = (
                f"the adapter sends {source} as {field}: write {source} instead (from extra it "
                "would replace or bypass that setting in every request, and the run would record "
                "the setting, not what was sent)"
            )
        else:
            refused[f"extra.{key}"] = (
                f"the adapter sets {field} from {source}: from extra it would replace that in "
                "every request, and the run would record the other; remove it"
            )
    return refused


def snake_case(key: str) -> str:
    """`maxOutputTokens` -> `max_output_tokens` (a key already in snake case stays as it is)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()

"""Provider registry: built-in adapters by name, third-party ones through entry points.

A package adds a provider by declaring, in its own `pyproject.toml`::

    [project.entry-points."poemetric.providers"]
    myprovider = "mypkg.module:MyProvider"

and a model file then says `provider: myprovider`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from poemetric.providers.base import ModelSpec, Provider

ENTRY_POINT_GROUP = "poemetric.providers"

# Built-ins are imported lazily so that, e.g., importing POEMetric never imports vLLM.
_BUILTIN: dict[str, str] = {
    "human": "poemetric.providers.offline:HumanProvider",
    "markov": "poemetric.providers.offline:MarkovProvider",
    "openai": "poemetric.providers.openai_provider:OpenAIProvider",
    "openai-compatible": "poemetric.providers.openai_provider:OpenAICompatibleProvider",
    "anthropic": "poemetric.providers.anthropic_provider:AnthropicProvider",
    "google": "poemetric.providers.google_provider:GoogleProvider",
    "vllm": "poemetric.providers.vllm_provider:VLLMProvider",
    "transformers": "poemetric.providers.transformers_provider:TransformersProvider",
}
_REGISTERED: dict[str, type[Provider]] = {}


class UnknownProviderError(LookupError):
    pass


def register_provider(name: str, cls: type[Provider]) -> None:
    """Register a provider class in-process (tests, notebooks)."""
    _REGISTERED[name] = cls


def _load(target: str) -> type[Provider]:
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, Provider)):
        raise TypeError(f"{target} is not a poemetric Provider subclass")
    return cls


def available_providers() -> list[str]:
    names = set(_BUILTIN) | set(_REGISTERED)
    names |= {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names)


def provider_class(name: str) -> type[Provider]:
    if name in _REGISTERED:
        return _REGISTERED[name]
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return _load(ep.value)
    if name in _BUILTIN:
        return _load(_BUILTIN[name])
    raise UnknownProviderError(
        f"no provider named {name!r}; available: {', '.join(available_providers())}. "
        f"Third-party providers register through the {ENTRY_POINT_GROUP!r} entry-point group."
    )


def create_provider(spec: ModelSpec) -> Provider:
    return provider_class(spec.provider)(spec)

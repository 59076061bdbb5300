"""Model providers behind one async interface (see `base.Provider`)."""

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    Provider,
    ProviderError,
    TokenUsage,
)
from poemetric.providers.registry import create_provider, provider_class, register_provider

__all__ = [
    "ChatMessage",
    "Completion",
    "GenerationRequest",
    "GenerationSettings",
    "ModelSpec",
    "Provider",
    "ProviderError",
    "TokenUsage",
    "create_provider",
    "provider_class",
    "register_provider",
]

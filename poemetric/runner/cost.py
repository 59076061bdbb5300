"""Token and cost estimates before a call, and the `--max-cost` budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poemetric.providers.base import ChatMessage, ModelSpec, TokenUsage

#: Rough characters per token of English text for the pre-call estimate.
CHARS_PER_TOKEN = 4.0
#: Typical output of one poem (or one judgment) when the model file sets no `max_tokens` cap.
TYPICAL_OUTPUT_TOKENS = 800
#: Thinking models spend far more on reasoning than on the poem.
TYPICAL_THINKING_OUTPUT_TOKENS = 4000


def estimate_input_tokens(messages: Sequence[ChatMessage]) -> int:
    return sum(int(len(m.content) / CHARS_PER_TOKEN) + 4 for m in messages) + 3


def estimate_output_tokens(spec: ModelSpec, override: int | None = None) -> int:
    """Expected output tokens: the override, else a typical length capped by `max_tokens`."""
    if override is not None:
        return override
    typical = TYPICAL_THINKING_OUTPUT_TOKENS if spec.thinking else TYPICAL_OUTPUT_TOKENS
    cap = spec.settings.max_tokens
    return min(typical, cap) if cap else typical


def usage_cost(spec: ModelSpec, usage: TokenUsage, *, batch: bool = False) -> float:
    """USD for one response. `output_tokens` is taken to include reasoning tokens, as billed."""
    return spec.pricing.cost(usage.input_tokens, usage.output_tokens, batch=batch)


@dataclass
class Budget:
    """Spending cap for one command: spent + in-flight reservations never exceed `limit_usd`."""

    limit_usd: float | None = None
    spent_usd: float = 0.0
    reserved_usd: float = 0.0
    refused: int = 0

    def try_reserve(self, amount_usd: float) -> bool:
        if self.limit_usd is not None and (
            self.spent_usd + self.reserved_usd + amount_usd > self.limit_usd
        ):
            self.refused += 1
            return False
        self.reserved_usd += amount_usd
        return True

    def settle(self, reserved_usd: float, actual_usd: float) -> None:
        self.reserved_usd = max(0.0, self.reserved_usd - reserved_usd)
        self.spent_usd += actual_usd

    @property
    def exhausted(self) -> bool:
        return self.refused > 0

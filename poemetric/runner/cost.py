"""Token and cost estimates before a call, and the `--max-cost` budget."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

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


def budget_cost(
    spec: ModelSpec, usage: TokenUsage, estimate_usd: float, *, batch: bool = False
) -> float:
    """What a response counts against `--max-cost`: its billed cost, or the call's estimate when
    the provider reported no usage at all (a proxy or server that drops the field), so that
    uncounted calls cannot spend past the cap."""
    if usage.input_tokens == 0 and usage.output_tokens == 0:
        return estimate_usd
    return usage_cost(spec, usage, batch=batch)


#: Reservations below this (USD) are rounding left over from settled calls: none in flight.
_NOTHING_USD = 1e-9


@dataclass
class Budget:
    """Spending cap for one command: spent + in-flight reservations never exceed `limit_usd`.

    A call is refused (skipped) on its own estimate: when what is spent plus that estimate
    exceeds the cap. A refusal stops nothing else: a cheaper call that still fits runs (an
    expensive model cut at the cap leaves the cheap models running). `reserve` (concurrent calls)
    waits while only the reservations of calls in flight stand in the way: they settle at their
    real cost, usually far below the estimate. Waiting calls are served first come, first
    served; a call that would fit now still queues behind them, so cheap calls never starve an
    expensive one that fits once the calls in flight settle (the price: near the cap they wait
    for those settlements too). A waiting call is answered at the latest when nothing is in
    flight: it then fits, or it never will and is refused.
    """

    limit_usd: float | None = None
    spent_usd: float = 0.0
    reserved_usd: float = 0.0
    refused: int = 0
    _waiting: deque[tuple[float, asyncio.Future[bool]]] = field(
        default_factory=deque, init=False, repr=False
    )

    def try_reserve(self, amount_usd: float) -> bool:
        """Reserve `amount_usd` now, without waiting (batch submissions, offline chunks); False
        (the call is skipped) when it does not fit beside what is spent and reserved."""
        return self._take(amount_usd, self._fits(amount_usd) is True)

    async def reserve(self, amount_usd: float) -> bool:
        """Reserve `amount_usd` for a call, after the calls already waiting; False (the call is
        skipped) when what is spent plus `amount_usd` exceeds the cap."""
        fits = self._fits(amount_usd)
        if fits is False or (fits and not self._waiting):  # one that never fits need not wait
            return self._take(amount_usd, fits)
        turn: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((amount_usd, turn))
        try:
            return await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled() and turn.result():
                self.settle(amount_usd, 0.0)  # reserved for a call that will not be made
            else:
                self._serve_waiting()  # the calls behind it may not wait for a settlement
            raise

    def settle(self, reserved_usd: float, actual_usd: float) -> None:
        self.reserved_usd = max(0.0, self.reserved_usd - reserved_usd)
        if self.reserved_usd < _NOTHING_USD:
            self.reserved_usd = 0.0
        self.spent_usd += actual_usd
        self._serve_waiting()

    @property
    def cut(self) -> bool:
        """Some call was refused at the cap (its job skipped); cheaper calls may still run."""
        return self.refused > 0

    def _fits(self, amount_usd: float) -> bool | None:
        """True: the call fits now; False: it never will (spent only grows, and spent plus its
        estimate exceeds the cap); None: it may fit once the calls in flight have settled."""
        if self.limit_usd is None or (
            self.spent_usd + self.reserved_usd + amount_usd <= self.limit_usd
        ):
            return True
        if self.reserved_usd <= 0 or self.spent_usd + amount_usd > self.limit_usd:
            return False
        return None

    def _take(self, amount_usd: float, fits: bool) -> bool:
        if fits:
            self.reserved_usd += amount_usd
        else:
            self.refused += 1
        return fits

    def _serve_waiting(self) -> None:
        """Give the waiting calls their reservations, first come first served, refusing each
        one that can no longer fit; stop at the first that must wait for settlements."""
        while self._waiting:
            amount_usd, turn = self._waiting[0]
            if turn.done():  # cancelled while waiting
                self._waiting.popleft()
                continue
            fits = self._fits(amount_usd)
            if fits is None:
                return
            self._waiting.popleft()
            turn.set_result(self._take(amount_usd, fits))

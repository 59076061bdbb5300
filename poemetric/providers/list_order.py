"""The order of a provider's batch list, as read so far (`FindsBatches.find_batches`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ListOrder:
    """The order of a batch list as read so far: OpenAI's is newest first, a compatible API's
    may be oldest first, and only a list seen to go down in time (never up) may be left at its
    first batch created before `since`."""

    searched: int = 0
    last: float | None = None
    went_down: bool = False
    went_up: bool = False

    def ends_before(self, created_at: float, since: float) -> bool:
        """Whether the list holds nothing created after `since` past this batch."""
        if self.last is not None:
            self.went_down |= created_at < self.last
            self.went_up |= created_at > self.last
        self.last = created_at
        return created_at < since and self.went_down and not self.went_up

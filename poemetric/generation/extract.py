"""Poem extraction from model answers; lives in `poemetric.extraction` (shared with the form check).

Kept importable here for the generation stage and existing callers.
"""

from __future__ import annotations

from poemetric.extraction import ExtractedPoem, extract_poem, split_reasoning

__all__ = ["ExtractedPoem", "extract_poem", "split_reasoning"]

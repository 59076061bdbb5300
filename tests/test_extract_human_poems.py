"""Answer extraction leaves a human poem as it is, and an extracted poem as it is.

`poemetric form check` applies the pipeline's extraction by default, also to a file of human
poems or to an exported generations file, whose poems the run has already extracted. Neither
may lose a line to it: a first line taken for a title, a last one for a closing remark.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.data.dataset import load_dataset
from poemetric.extraction.pipeline import extract_poem


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n")]


def _changed(dataset: str) -> list[str]:
    """Ids of the dataset's poems that extraction changes, or whose extraction changes again."""
    changed = []
    for poem in load_dataset(dataset).poems:
        once = extract_poem(poem.content).poem
        if _lines(once) != _lines(poem.content) or extract_poem(once).poem != once:
            changed.append(poem.poem_id)
    return changed


@pytest.mark.parametrize("dataset", ["demo", "lear-limericks"])
def test_extraction_leaves_the_bundled_human_poems_as_they_are(dataset: str) -> None:
    assert _changed(dataset) == []


def test_extraction_leaves_the_releases_human_poems_as_they_are(poemetric_gold_csv: Path) -> None:
    """All 163 poems of the POEMetric release (measured 2026-11-27: none changed)."""
    assert _changed(str(poemetric_gold_csv)) == []

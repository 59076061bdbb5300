"""The dataset cards (datasets/*/README.md) against the data the loader returns: counts per form,
the release's empty and odd values, its errata, and what the cards say of its licence."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from poemetric.data import load_dataset

DATASETS = Path(__file__).resolve().parents[1] / "datasets"


def _card(name: str) -> str:
    return (DATASETS / name / "README.md").read_text(encoding="utf-8")


def _form_table(card: str) -> dict[str, int]:
    """`| form | N | ... |` rows of a card's first table whose first cell is a form name."""
    forms = ("ballad", "ghazal", "limerick", "pantoum", "sestina", "sonnet", "villanelle")
    rows = re.findall(r"^\| (\w+) \| (\d+) \|", card, flags=re.MULTILINE)
    return {form: int(count) for form, count in rows if form in forms}


@pytest.mark.parametrize("name", ["demo", "lear-limericks"])
def test_bundled_cards_count_the_poems_the_loader_returns(name: str) -> None:
    counts = Counter(poem.form.value for poem in load_dataset(name))
    card = _card(name)
    if name == "demo":
        assert _form_table(card) == counts
        assert f"**{sum(counts.values())} public-domain" in card
    else:
        assert counts == {"limerick": 38} and "| poems | 38, all `limerick`" in card


def test_the_release_card_matches_the_release(poemetric_gold_csv: Path) -> None:
    release = load_dataset(poemetric_gold_csv)
    card = _card("poemetric")
    table = _form_table(card)
    assert table == {"pantoum": 0, **Counter(poem.form.value for poem in release)}
    assert f"| **total** | **{len(release)}** |" in card
    no_rhyme = sum(poem.rhyme_pattern is None for poem in release)
    no_meter = sum(poem.meter_pattern is None for poem in release)
    dates = sum(poem.author_dates is not None for poem in release)
    assert f"is empty for {no_rhyme} poems" in card
    assert f"`meter_pattern` is empty for {no_meter} poems" in card
    assert f"`year` is empty for {len(release) - dates} poems" in card and f"for {dates}," in card
    errata = yaml.safe_load((DATASETS / "poemetric" / "errata.yaml").read_text())["errata"]
    assert f"lists {len(errata)} annotations" in card
    for erratum in errata:
        assert re.search(rf"\b{erratum['row']}\b", card.split("## Errata")[1].split("##")[0])


def test_no_card_calls_every_poem_of_the_release_public_domain(poemetric_gold_csv: Path) -> None:
    """The card, the registry and the docs said "The poems are in the public domain" / "163
    public-domain poems", while the release's own `year` column gives one author's life dates
    with no year of death: poems by living poets are not in the public domain."""
    living = [
        poem
        for poem in load_dataset(poemetric_gold_csv)
        if poem.author_dates and re.fullmatch(r"\d{4}\s*-", poem.author_dates)
    ]
    assert living  # the data itself shows that the claim cannot hold for every row
    root = DATASETS.parent
    texts = {
        "card": _card("poemetric"),
        "registry": yaml.safe_load((DATASETS / "registry.yaml").read_text())["datasets"],
        "docs": (root / "docs" / "datasets.md").read_text(encoding="utf-8"),
        "readme": (root / "README.md").read_text(encoding="utf-8"),
    }
    entry = next(e for e in texts.pop("registry") if e["name"] == "poemetric")
    texts["registry"] = f"{entry['description']} {entry['licence']}"
    claims = re.compile(
        r"poems are in the public domain|poems in the public domain|\b163 public-domain poems"
        r"|public-domain release",
        flags=re.IGNORECASE,
    )
    for where, text in texts.items():
        assert not claims.search(" ".join(text.split())), where
    licence = texts["card"].split("## Licence and attribution")[1]
    assert "living" in licence and "`1946 - `" in licence

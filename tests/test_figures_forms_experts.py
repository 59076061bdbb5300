"""A recipe's `forms:` with expert ratings (`figures --experts`): the expert panel of
`dimension_bars` took the experts' ratings of every form beside the judge's scores of the
recipe's forms only. With `judge_poems: all` the hatched bars were the experts' means over the
poems of every form, the caption counting them ("on the poems they rated (19 poems)"); with the
default, matched poems, the caption said the experts' poems of the other forms were "left out of
both, as the judge has no score for them", where the judge had scored every one of them. A form
the experts rated none of was skipped ("judged none of the poems the experts rated"): it is
drawn without their bars, and the terminal says so."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis.figures_scores import NO_EXPERT_BARS
from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts
from poemetric.cli import app
from poemetric.store import RunStore

AUTHORS = ("human", "model-a", "model-b")


@pytest.fixture(scope="module")
def run_and_ratings(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """A judged run of ballads, sonnets and villanelles, and expert ratings of its ballads and
    sonnets only (the panel rated no villanelle); generation id -> form of the rated poems."""
    base = tmp_path_factory.mktemp("forms-experts")
    forms = {"ballad": 4, "sonnet": 4, "villanelle": 3}
    with build_synthetic_run(base / "run", authors=AUTHORS, poems_per_form=forms) as store:
        every = write_synthetic_experts(store, base / "every.csv", authors=AUTHORS, experts=6,
                                        poems_per_expert=8)  # fmt: skip
        form_of = {row["generation_id"]: row["form"] for row in store.query(
            "SELECT g.generation_id, p.form FROM generations g JOIN poems p USING (poem_id)")}  # fmt: skip
    with every.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    kept = [rows[0], *(row for row in rows[1:] if form_of[row[1]] != "villanelle")]
    ratings = base / "experts.csv"
    with ratings.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(kept)
    rated = {row[1]: form_of[row[1]] for row in kept[1:]}
    assert set(rated.values()) == {"ballad", "sonnet"}
    return base / "run", ratings, rated


def _experts_of(ratings: Path, form: str, rated: dict[str, str]) -> tuple[int, int]:
    """(experts, poems) of the ratings of `form`."""
    with ratings.open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if rated[row["generation_id"]] == form]
    return len({row["expert"] for row in rows}), len({row["generation_id"] for row in rows})


def test_the_expert_panel_of_a_form_selection_is_of_those_forms(
    run_and_ratings: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    run, ratings, rated = run_and_ratings
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n"
        "  - {name: every, kind: dimension_bars, group: basic}\n"
        "  - {name: sonnets, kind: dimension_bars, group: basic, forms: sonnet}\n"
        "  - {name: sonnets-all, kind: dimension_bars, group: basic, forms: sonnet,"
        " judge_poems: all}\n"
        "  - {name: villanelles, kind: dimension_bars, group: basic, forms: villanelle}\n",
        encoding="utf-8",
    )
    out = tmp_path / "figs"
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--experts", str(ratings),
               "--format", "png", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    caption = {name: " ".join((out / f"{name}.caption.txt").read_text(encoding="utf-8").split())
               for name in ("every", "sonnets", "sonnets-all", "villanelles")}  # fmt: skip
    experts, poems = _experts_of(ratings, "sonnet", rated)
    assert poems < len(rated)  # the panel rated ballads too
    # The judge scored every poem: none of the experts' poems is left out of the matched bars.
    for name in ("every", "sonnets"):
        assert "left out" not in caption[name], caption[name]
    assert f"Hatched grey bars: {experts} human experts on the same poems" in caption["sonnets"]
    # judge_poems: all: the experts' bars are over the sonnets they rated, not every poem.
    assert (
        f"Hatched grey bars: {experts} human experts on the poems they rated ({poems} poems;"
        in caption["sonnets-all"]
    )
    # No villanelle rated: no expert bars, and the terminal says why.
    assert "Hatched grey bars" not in caption["villanelles"]
    assert caption["villanelles"].endswith("Only the villanelle poems (the recipe's forms:).")
    assert f"villanelles: {NO_EXPERT_BARS}" in " ".join(result.output.split())
    assert "sonnets: the expert ratings have none" not in result.output


def test_the_tables_of_a_form_selection_hold_its_expert_ratings_only(
    run_and_ratings: tuple[Path, Path, dict[str, str]],
) -> None:
    from poemetric.analysis.context import RunFrames
    from poemetric.analysis.data import load_run_data
    from poemetric.analysis.experts import load_expert_ratings
    from poemetric.analysis.form_selection import frames_of_forms

    run, ratings, rated = run_and_ratings
    with RunStore(run, create=False) as store:
        every = RunFrames(load_run_data(store), load_expert_ratings(ratings, store))
    frames = {(): every}
    sonnets = frames_of_forms(frames, ("sonnet",))
    assert sonnets.experts is not None
    assert set(sonnets.experts["poem_form"]) == {"sonnet"}
    assert sonnets.experts["generation_id"].nunique() == _experts_of(ratings, "sonnet", rated)[1]
    villanelles = frames_of_forms(frames, ("villanelle",))
    assert villanelles.experts is not None and villanelles.experts.empty
    assert every.experts is not None and len(every.experts) > len(sonnets.experts)


def test_the_experts_count_of_judge_poems_all_is_of_the_authors_shown(
    run_and_ratings: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    """With `judge_poems: all` and `--authors`, the caption counted the experts and the poems
    they rated over every author, the hidden ones included."""
    run, ratings, _ = run_and_ratings
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n  - {name: all, kind: dimension_bars, group: basic, judge_poems: all}\n",
        encoding="utf-8",
    )
    out = tmp_path / "figs"
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--experts", str(ratings),
               "--authors", "human,model-a", "--format", "png", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    caption = " ".join((out / "all.caption.txt").read_text(encoding="utf-8").split())
    with ratings.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with RunStore(run, create=False) as store:
        author_of = {row["generation_id"]: row["author"] for row in store.query(
            "SELECT generation_id, author FROM generations")}  # fmt: skip
    shown = [row for row in rows if author_of[row["generation_id"]] in {"human", "model-a"}]
    experts = len({row["expert"] for row in shown})
    poems = len({row["generation_id"] for row in shown})
    assert poems < len({row["generation_id"] for row in rows})  # model-b's poems were rated too
    assert (
        f"Hatched grey bars: {experts} human experts on the poems they rated ({poems} poems;"
        in caption
    ), caption

"""The form-check tables printed `n` (the checked poems) beside a meter mean taken over fewer of
them: a poem whose form and annotation ask for no meter (most ballads of the POEMetric dataset,
whose meter is not annotated) or no rhyme (a sestina) has no such score and is left out of that
mean. The paper's dataset gave a meter mean over 83 of 163 human poems, and the human ballads'
"1.00" over 1 of 77, with nothing saying so. Each mean now carries its count: `n_meter` and
`n_rhyme` in the tables, the report's cells and the figure's caption."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis import analyze_run
from poemetric.analysis.scores import form_check_scores
from poemetric.cli import app
from poemetric.store import RunStore

#: (poem, form, passed, meter, rhyme, form score): p2's ballad has no meter annotated, p3 is a
#: sestina (no rhyme).
CHECKS = [
    ("p1", "sonnet", 1, 0.9, 0.8, 1.0),
    ("p2", "ballad", 1, None, 0.9, 1.0),
    ("p3", "sestina", 0, 0.5, None, 0.4),
]


def _fill(store: RunStore) -> None:
    template = store.add_template("t", "Write a {form}.")
    store.add_poems([
        {"poem_id": poem, "dataset": "t", "position": i, "form": form,
         "content": f"the moon over the sea {i}\nand the rain on the road", "record": "{}"}
        for i, (poem, form, *_) in enumerate(CHECKS)
    ])  # fmt: skip
    store.add_prompts([
        {"prompt_id": f"q-{poem}", "poem_id": poem, "template_hash": template, "text": "x"}
        for poem, *_ in CHECKS
    ])  # fmt: skip
    for poem, _form, passed, meter, rhyme, form_score in CHECKS:
        for author in ("human", "bot"):
            generation = f"{author}-{poem}"
            store.save_generation({"generation_id": generation, "prompt_id": f"q-{poem}",
                                   "poem_id": poem, "author": author, "status": "ok",
                                   "poem": "the moon over the sea\nand the rain on the road"})  # fmt: skip
            store.save_form_check({"generation_id": generation, "checker_version": "t",
                                   "passed": passed, "meter_score": meter, "rhyme_score": rhyme,
                                   "form_score": form_score})  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    with RunStore(tmp_path / "run") as run_store:
        _fill(run_store)
        yield run_store


def test_each_mean_of_the_form_check_tables_carries_its_count(
    store: RunStore, tmp_path: Path
) -> None:
    result = analyze_run(store)
    checks = result.table("form_checks").set_index("author")
    assert checks.at["human", "n"] == 3
    assert checks.at["human", "n_meter"] == 2
    assert checks.at["human", "meter_score_mean"] == pytest.approx((0.9 + 0.5) / 2)
    assert checks.at["human", "n_rhyme"] == 2
    assert checks.at["human", "rhyme_score_mean"] == pytest.approx((0.8 + 0.9) / 2)
    by_form = result.table("form_checks_by_form").set_index(["author", "poem_form"])
    assert by_form.at[("human", "ballad"), "n"] == 1
    assert by_form.at[("human", "ballad"), "n_meter"] == 0
    assert by_form.at[("human", "sestina"), "n_rhyme"] == 0
    result.write(tmp_path / "out")
    table = (tmp_path / "out" / "form_checks.md").read_text(encoding="utf-8")
    header = next(line for line in table.splitlines() if line.startswith("| Author"))
    assert "| n meter | Meter score [95% CI] | n rhyme | Rhyme score [95% CI] |" in header
    assert "meter and rhyme means over the poems that have such a score" in table
    human = next(line for line in table.splitlines() if line.startswith("| Human"))
    assert "| 3 | 0 |" in human and "| 2 | 0.70 [" in human


def test_an_empty_form_check_table_has_the_count_columns() -> None:
    import pandas as pd

    empty = form_check_scores(pd.DataFrame())
    assert {"n_meter", "n_rhyme"} <= set(empty.columns)


def test_the_report_and_the_figure_say_over_how_many_poems_a_mean_is(store: RunStore) -> None:
    run = store.run_dir
    store.close()
    result = CliRunner().invoke(app, ["report", "--run", str(run)])
    assert result.exit_code == 0, result.output
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('id="form-checks-title"') :]
    assert "0.70 [" in section and "] (2)</td>" in section  # the meter mean, over 2 of 3
    assert "the number averaged follows in parentheses" in section
    recipe = run / "form.yaml"
    recipe.write_text("figures:\n  - name: form-accuracy\n    kind: form_accuracy\n")
    result = CliRunner().invoke(
        app, ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    )
    assert result.exit_code == 0, result.output
    caption = (run / "figures" / "form-accuracy.caption.txt").read_text(encoding="utf-8")
    assert "the meter mean over 2 poems and the rhyme mean over 2 poems each" in caption

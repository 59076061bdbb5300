"""A text that is not a poem (empty, a refusal, one line, another script) has the same scores in
`form check`'s output as `form run` stores for it: 0.0, a failure that score means count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis.scores import form_check_scores
from poemetric.cli.app import app
from poemetric.form.checker import check_poem
from poemetric.form.forms import EXTRA_FORMS, FORMS
from poemetric.form.stage import run_form_stage
from tests.test_form_cli import _store_with_generations

runner = CliRunner()
SCORES = ("meter_score", "rhyme_score", "form_score")
# Invented for this test: answers a model might give instead of a limerick.
NOT_POEMS = {
    "g5": "I'm sorry, but I would rather not write a limerick about that.",
    "g6": "",
    "g7": "月光照在小桥上\n河水慢慢向东流\n老人坐着看星星",
}


def test_check_poem_scores_a_text_that_is_not_a_poem_zero() -> None:
    for text in NOT_POEMS.values():
        result = check_poem(text, "limerick", None, "AABBA")
        assert result.error_kind == "text" and not result.passed
        assert (result.meter_score, result.rhyme_score, result.form_score) == (0.0, 0.0, 0.0)
    # a request the checker cannot read is not checked: no scores
    unread = check_poem("", "rondeau")
    assert unread.error_kind == "request" and unread.form_score is None


# Invented for this test: enough lines and stanzas for every form's rule to score something.
SOME_VERSE = "\n\n".join(
    "The lamp burns low beside the door\nThe rain has found the garden floor" for _ in range(4)
)


@pytest.mark.parametrize("form", [*FORMS, *EXTRA_FORMS])
@pytest.mark.parametrize("meter", [None, "iambic tetrameter", "Accentual"])
@pytest.mark.parametrize("rhyme", [None, "AABB"])
def test_a_text_that_is_not_a_poem_scores_zero_only_where_a_poem_has_a_score(
    form: str, meter: str | None, rhyme: str | None
) -> None:
    """A refused ghazal with no metre requested had meter_score 0.0 where a ghazal has none,
    which pulled a metre mean into a form without metre."""
    poem = check_poem(SOME_VERSE, form, meter, rhyme)
    refused = check_poem(NOT_POEMS["g5"], form, meter, rhyme)
    assert poem.error is None and refused.error_kind == "text"
    for score in SCORES:
        expected = None if getattr(poem, score) is None else 0.0
        assert getattr(refused, score) == expected, (score, form, meter, rhyme)


def test_form_check_and_form_run_agree_on_a_text_that_is_not_a_poem(tmp_path: Path) -> None:
    with _store_with_generations(tmp_path / "run") as store:
        for gid, text in NOT_POEMS.items():
            store.save_generation(
                {"generation_id": gid, "prompt_id": "q2", "poem_id": "p2", "author": "markov",
                 "sample_index": int(gid[1:]), "status": "ok", "poem": text}
            )  # fmt: skip
        run_form_stage(store, progress=False)
        stored = {
            row["generation_id"]: row
            for row in store.query("SELECT * FROM form_checks")
            if row["generation_id"] in NOT_POEMS
        }
    exported = tmp_path / "export"
    result = runner.invoke(
        app, ["export", "generations", "--run", str(tmp_path / "run"), "-o", str(exported), "-f", "jsonl"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(
        app, ["form", "check", str(exported / "generations.jsonl"), "-o", str(out), "--no-progress"]
    )  # fmt: skip
    # exit 1: the run's failed generation (g4) has no text; the texts that are not poems fail
    assert result.exit_code == 1 and "id g4: missing poem text" in result.output, result.output
    checked = {
        record["id"]: record
        for record in map(json.loads, out.read_text().splitlines())
        if record["id"] in NOT_POEMS
    }
    assert set(checked) == set(stored) == set(NOT_POEMS)
    for gid in NOT_POEMS:
        assert checked[gid]["error_kind"] == "text" and checked[gid]["passed"] is False
        assert [checked[gid][s] for s in SCORES] == [stored[gid][s] for s in SCORES] == [0.0] * 3
    # The analysis of `form check` rows gives the means a run's tables give.
    import pandas as pd

    frame = pd.DataFrame(
        {"author": "markov", "passed": [int(r["passed"]) for r in checked.values()]}
        | {s: [r[s] for r in checked.values()] for s in SCORES}
    )
    table = form_check_scores(frame).set_index("author")
    assert table.at["markov", "n"] == 3
    assert table.at["markov", "form_score_mean"] == pytest.approx(0.0)

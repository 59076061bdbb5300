"""A model asked for by the label tables, figures and the report show (its `display_name`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.roster import RosterError, get_model, select_models


def test_a_display_name_names_the_model_it_labels() -> None:
    """`--models "Markov baseline"` or `--judge GPT-4o` (the names every table and figure show)
    was "unknown model or group" with no close match to go by; the error names the model."""
    with pytest.raises(RosterError) as refused:
        select_models("markov,Markov baseline")
    assert str(refused.value).startswith(
        "unknown model or group 'Markov baseline' ('Markov baseline' is the display name of "
        "'markov'); see `poemetric models`"
    )
    with pytest.raises(RosterError, match=r"'GEMINI-2\.5-PRO' is the display name of 'gemini-"):
        select_models("pilot,GEMINI-2.5-PRO", kind="judges")  # a label in any case
    with pytest.raises(RosterError, match=r"^unknown judge 'Gemini-2\.5-Pro' \('Gemini-2\.5-Pro' "):
        get_model("Gemini-2.5-Pro", kind="judges")
    shown = CliRunner().invoke(app, ["models", "show", "GPT-4o"], env={"COLUMNS": "400"})
    assert shown.exit_code == 2
    assert (
        shown.stderr
        == "error: unknown generator 'GPT-4o' ('GPT-4o' is the display name of 'gpt-4o')\n"
    )


@pytest.mark.parametrize("kind", ["generators", "judges"])
def test_models_show_fills_in_the_display_name_default(
    kind: str, user_model: Callable[[str, str, str], Path]
) -> None:
    """`models show` prints a model "with defaults filled in", but a file without display_name
    printed `display_name: null`, where every table, figure and the report show its name."""
    user_model(kind, "plain-model", "name: plain-model\nprovider: markov\nmodel: markov-ngram\n")
    args = ["models", "show", "plain-model", *(["--judges"] if kind == "judges" else [])]
    shown = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert shown.exit_code == 0, shown.output
    assert "\ndisplay_name: plain-model\n" in shown.stdout
    shown = CliRunner().invoke(app, ["models", "show", "markov"], env={"COLUMNS": "400"})
    assert "\ndisplay_name: Markov baseline\n" in shown.stdout  # a file's own is kept

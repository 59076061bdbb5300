"""`api_key_env` written as a shell reference (`$MY_KEY`): the refusal says what to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.roster import RosterError, load_model_file
from poemetric.roster.base import RosterFileError

FILE = """\
name: tiny
provider: openai-compatible
model: tiny-model
base_url: http://127.0.0.1:9/v1
api_key_env: {value}
"""


@pytest.mark.parametrize("value", ["$MY_KEY", "'${MY_KEY}'"])
def test_a_dollar_in_api_key_env_is_refused_with_the_name_to_write(
    tmp_path: Path, value: str
) -> None:
    """`api_key_env: $MY_KEY` was refused as "not the name of the environment variable ...
    never the key itself", which did not say that the `$` was the problem."""
    (tmp_path / "tiny.yaml").write_text(FILE.format(value=value), encoding="utf-8")
    with pytest.raises(RosterFileError) as raised:
        load_model_file(tmp_path / "tiny.yaml")
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'tiny.yaml'}:5: api_key_env: ")
    assert "write `api_key_env: MY_KEY`" in message
    assert "drop the '$': MY_KEY" in raised.value.reason


def test_a_key_after_a_dollar_is_still_not_repeated(tmp_path: Path) -> None:
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    (tmp_path / "tiny.yaml").write_text(FILE.format(value=f"${key}"), encoding="utf-8")
    with pytest.raises(RosterError) as raised:
        load_model_file(tmp_path / "tiny.yaml")
    assert key not in str(raised.value) and "never the key itself" in str(raised.value)

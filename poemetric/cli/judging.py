"""Command-line plumbing shared by the commands that run an LLM judge over a run's poems
(`poemetric judge`, `poemetric ghostwriting style-match`). Imports stay inside the functions
(CLI start-up time)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from poemetric.cli.options import error_exit, existing_run, require_poems
from poemetric.hints import run_by_make, stage_command

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec
    from poemetric.roster import Roster
    from poemetric.store import RunStore


#: `--refresh-failed-parses` of every command that asks a judge and parses its answer (`judge`,
#: `judge recognise`, `ghostwriting style-match`): all three go through the same runner, which
#: re-parses a cached answer first and pays for a new one only where that still fails.
RefreshFailedParsesOption = typer.Option(
    False,
    "--refresh-failed-parses",
    help="Pay for a new answer where the cached one still cannot be parsed (of a re-asked "
    "judgment, a new answer to its last re-ask: the earlier turns stay).",
)

#: The judge file for any model behind an OpenAI-compatible server, and the variables it reads.
LOCAL_JUDGE = "local-openai"
LOCAL_BASE_URL_ENV = "POEMETRIC_LOCAL_BASE_URL"
LOCAL_MODEL_ENV = "POEMETRIC_LOCAL_MODEL"
#: The key in the printed local-judge commands: the server started with it checks it.
LOCAL_API_KEY = "local-secret"


def local_judge_commands(local: ModelSpec, run: Path) -> list[str]:
    """Shell commands that serve `local`'s model with vLLM and judge `run` with it, built from
    the judge file (model, endpoint, the variable its key is read from); `demo` and `judge`
    print the same ones."""
    from poemetric.providers.remote_common import key_variables
    from poemetric.redaction import url_to_copy

    key = f" --api-key {LOCAL_API_KEY}   # the key: any non-empty value"
    base_url, login_note = url_to_copy(local.base_url or "")
    return [
        f"vllm serve {local.model}{'' if local.api_key_env is False else key}",
        f"export {LOCAL_BASE_URL_ENV}={base_url}" + (f"   # {login_note}" if login_note else ""),
        f"export {LOCAL_MODEL_ENV}={local.model}",
        *(f"export {variable}={LOCAL_API_KEY}" for variable in key_variables(local)[:1]),
        stage_command("judge", run, LOCAL_JUDGE),
    ]


def load_judges() -> dict[str, ModelSpec]:
    """The judges of judges/ (a broken file is a usage error)."""
    from poemetric.roster import RosterError, load_roster

    try:
        return load_roster("judges")
    except RosterError as error:
        raise error_exit(error) from None


def not_one_judge(
    name: str, command: str, catalog: Roster | None = None, option: str = "--judge"
) -> str | None:
    """Why `name`, which `poemetric judge --judge` takes, is refused by `command`, which runs
    one judge: a judge group (`pilot`) or a comma-separated list. None for any other name.
    `option`: how the message names where the value came from (`given_as`).
    Without it, `--judge pilot` was "unknown judge 'pilot'", and `--judge a,b` suggested b."""
    from poemetric.roster import RosterError, load_groups

    names = [part.strip() for part in name.split(",") if part.strip()]
    if len(names) > 1:
        what = f"names {len(names)} judges"
    else:
        try:
            groups = load_groups("judges", catalog=catalog)
        except RosterError:
            return None
        names = groups.get(name, [])
        what = f"is a judge group ({', '.join(names)})"
    if not names:
        return None
    # Under make (`make demo JUDGE=pilot`) the variable: `make demo --judge x` is make's option.
    one = f"JUDGE={names[0]}" if run_by_make() and option == "--judge" else f"--judge {names[0]}"
    return (
        f"{option}: {name!r} {what}, and {command} runs one judge: give one "
        f"(e.g. {one}) and run it once per judge"
    )


def judge_spec(name: str, command: str) -> ModelSpec:
    """The judge `name` of judges/ for `command`, which runs one judge; a group or several
    judges, an unknown one, a file or a provider that cannot be used (its file and reason), a
    broken roster: a usage error."""
    from poemetric.roster import RosterError, UnknownModelError, get_model

    try:
        return get_model(name, "judges")
    except UnknownModelError as error:
        several = not_one_judge(name, command)
        if several:
            raise error_exit(several) from None
        known = load_judges()
        listed = ", ".join(known) if known else "none (the judges folder holds no judge file)"
        raise error_exit(f"{error}; judges: {listed}") from None
    except RosterError as error:
        raise error_exit(error) from None


def split_names(value: str | None) -> list[str] | None:
    """A comma-separated option (`--authors a,b`) as a list; None when it is not given."""
    return [a.strip() for a in value.split(",") if a.strip()] if value else None


def open_judged_run(run: Path, authors: list[str] | None) -> RunStore:
    """The run's store, once it has poems and every author in `authors` has some."""
    store = existing_run(run)
    try:
        require_poems(store, run)
        check_authors(store, run, authors)
    except BaseException:
        store.close()
        raise
    return store


def check_authors(store: RunStore, run: Path, authors: list[str] | None) -> None:
    """Refuse (exit 2) an `--authors` that names no author of the run: a mistyped name, or an
    author's display name (`Markov baseline`, as tables and figures show it), which the error
    names the author of (`author_hint`)."""
    if not authors:
        return
    from poemetric.analysis.labels import author_hint

    known = [r[0] for r in store.query("SELECT DISTINCT author FROM generations")]
    unknown = [a for a in authors if a not in known]
    if unknown:
        each = ", ".join(f"{a!r}{author_hint(store, a, known)}" for a in unknown)
        raise error_exit(
            f"--authors: no poems by {each} in run {run}; authors: {', '.join(sorted(known))}"
        )

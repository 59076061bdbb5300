"""`poemetric survey`: collect expert ratings (a local web app, printable sheets, imports).

The group, `build`, `links` and `serve`; `sheets`, `import` and `status` are in
survey_answers_cmd."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from poemetric.cli.app import app
from poemetric.cli.judging import split_names
from poemetric.cli.options import RunOption, error_exit, existing_run
from poemetric.store.connect import read_only_message, writable
from poemetric.store.db import DB_NAME, RunStore
from poemetric.text.plural import counted, plural

survey_app = typer.Typer(
    help="Human ratings: the expert survey (paper App. C) or line-level fluency / coherence "
    "(--task lines). Draw a sample, serve it to raters or print it, import answers. Answers "
    "land in the run store, where `poemetric analyze` finds them.\n\n"
    "  poemetric survey build --run runs/demo --raters 3 --per-rater 4\n\n"
    "  poemetric survey serve --run runs/demo --port 8765\n\n"
    "  poemetric survey status --run runs/demo\n\n"
    "  poemetric survey import R3.csv --run runs/paper --survey experts",
    no_args_is_help=True,
)
app.add_typer(survey_app, name="survey")
console = Console(emoji=False)
err_console = Console(emoji=False, stderr=True)

SurveyOption = typer.Option("experts", "--survey", "-s", help="Survey id within the run.")


@contextmanager
def refusals() -> Iterator[None]:
    """A design that cannot be met, a missing survey, one of another task and filled sheets in
    the way are unusable input: `error: ...` on stderr, exit status 2."""
    from poemetric.survey.db import SurveyError
    from poemetric.survey.design import DesignError

    try:
        yield
    except (DesignError, SurveyError) as exc:
        raise error_exit(exc) from exc


@survey_app.command("build")
def build(
    run: Path = RunOption,
    survey: str = SurveyOption,
    raters: str = typer.Option(
        "3", "--raters", help="Number of raters (ids R1, R2, …) or their ids: 'ann,ben,cy'."
    ),
    poems: int | None = typer.Option(
        None, "--poems", min=1, help="Poems in the sample (this or --per-rater is needed)."
    ),
    per_rater: int | None = typer.Option(
        None, "--per-rater", min=1, help="Poems per rater (instead of --poems)."
    ),
    per_poem: int = typer.Option(2, "--per-poem", min=2, help="Raters per poem (at least 2)."),
    authors: str | None = typer.Option(
        None, "--authors", help="Only these authors' poems (comma-separated, e.g. human,gpt-4o)."
    ),
    checks: int = typer.Option(
        0, "--attention-checks", min=0, help="Instructed-response checks per rater (web only)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample, assignment and order."),
    task_name: str = typer.Option(
        "poemetric",
        "--task",
        help="poemetric: the expert survey (App. C); lines: grade each line's fluency and "
        "coherence (1 / 0.5 / 0), scored in analyze's fluency_coherence table.",
    ),
) -> None:
    """Draw a survey: poems stratified by author and form, each given to --per-poem raters,
    every rater's poems in their own random order. Stored in the run; prints the design.

    Examples:

        poemetric survey build --run runs/demo --raters 3 --per-rater 4

        poemetric survey build --run runs/paper --raters 7 --per-rater 10 --seed 7

        poemetric survey build --run runs/paper --authors human,gpt-4o --poems 20

        poemetric survey build --run runs/paper --per-rater 10 --attention-checks 1

        poemetric survey build --run runs/demo --task lines --survey lines --poems 8
    """
    from poemetric.survey.build import build_survey

    with existing_run(run) as store, refusals():
        if poems is None and per_rater is None:  # "give --poems or --per-rater" named no command
            from poemetric.cli.interrupt import command_line

            given = [
                *(["--survey", survey] if survey != "experts" else []),
                *(["--task", task_name] if task_name != "poemetric" else []),
                *(["--authors", authors] if authors else []),
            ]
            again = command_line(["survey", "build", "--run", str(run), "--raters", raters, *given])
            raise error_exit(
                "survey build needs the sample's size: --per-rater N (poems each rater rates) or "
                f"--poems N (poems in the sample), e.g. `{again} --per-rater 10`"
            )
        summary = build_survey(
            store,
            survey_id=survey,
            raters=raters,
            poems=poems,
            per_rater=per_rater,
            per_poem=per_poem,
            authors=split_names(authors),
            checks=checks,
            seed=seed,
            task_name=task_name,
            author_hint=_author_hint,
        )
    total = sum(summary.poems_by_author.values())
    console.print(
        f"survey [bold]{survey}[/bold]: {total} poems x {per_poem} raters = "
        f"{total * per_poem} ratings by {len(summary.raters)} raters "
        f"({min(summary.loads.values())}-{max(summary.loads.values())} poems each"
        + (f", {counted(checks, 'attention check')} each" if checks else "")
        + f"), drawn with seed {seed}"  # the run keeps it too; a log of the command shows it
    )
    console.print("by author: " + ", ".join(f"{a} {n}" for a, n in summary.poems_by_author.items()))
    console.print("by form:   " + ", ".join(f"{f} {n}" for f, n in summary.poems_by_form.items()))
    shared = list(summary.overlap.values())
    apart = sum(1 for s in shared if s == 0)
    console.print(
        f"poems shared by each pair of raters: {min(shared)}-{max(shared)} "
        f"({counted(apart, 'pair')} {plural(apart, 'shares', 'share')} none)"
    )
    warning = summary.count_warning()
    if warning:
        typer.echo(warning, err=True)
    console.print("next: serve it on the web (private links), or print sheets for offline raters:")
    for command in ("serve", "sheets"):  # one line each, never wrapped, so it copies whole
        console.print(
            f"  poemetric survey {command} --run {shlex.quote(str(run))} --survey {survey}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _links(
    run: Path, survey: str, base_url: str | None, remember: bool = False
) -> tuple[list[tuple[str, str]], str, str]:
    """Each rater's link and the admin link for `base_url` (None: the address `serve` printed
    last, else the default), and the base used. `remember`: keep it for `links` (serve)."""
    from poemetric.cli import survey_address
    from poemetric.survey import db, tokens

    if base_url is not None and not base_url.lower().startswith(("http://", "https://")):
        host = base_url.split("://")[-1].lstrip("/") or "survey.example.org"
        raise error_exit(f"--base-url {base_url}: give the scheme too, e.g. https://{host}")
    with existing_run(run) as store, refusals():
        db.load_survey(store, survey)
        ids = db.raters(store, survey)
        if base_url is None:
            base_url = survey_address.recalled(store, survey)
        if base_url is None:
            base_url = f"http://127.0.0.1:{survey_address.DEFAULT_PORT}"
    try:
        secret = tokens.load_secret(run)
    except OSError as error:  # no secret yet, and the run folder is read-only
        raise error_exit(
            f"cannot make the survey's secret {tokens.secret_path(run)} ({error.strerror}): "
            "copy the run folder with its survey-secret.key, or run this where it is writable"
        ) from error
    base = base_url.rstrip("/")
    rater_links = [(r, f"{base}/r/{tokens.rater_token(secret, survey, r)}") for r in ids]
    return rater_links, f"{base}/admin/{tokens.admin_token(secret, survey)}", base


def _print_links(rater_links: list[tuple[str, str]], admin: str) -> None:
    """One line per link (never wrapped, so each can be copied whole)."""
    console.print("[bold]Private links[/bold] (send each rater only their own):")
    width = max(len(rater) for rater, _ in rater_links)
    for rater, link in rater_links:
        console.print(f"  {rater:<{width}}  {link}", markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"admin (progress, agreement): {admin}", markup=False, highlight=False, soft_wrap=True
    )


@survey_app.command("links")
def links(
    run: Path = RunOption,
    survey: str = SurveyOption,
    port: int | None = typer.Option(
        None, "--port", "-p", min=1, max=65535, help="Port on 127.0.0.1 (as `serve --port`)."
    ),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help="Address raters will use (default: the one `survey serve` printed last, else "
        "http://127.0.0.1:8765).",
    ),
) -> None:
    """Print each rater's private link and the admin link (they are derived from the secret in
    RUN/survey-secret.key: delete that file to revoke every link). Without --port or
    --base-url, for the address `survey serve` printed them for last.

    Examples:

        poemetric survey links --run runs/demo

        poemetric survey links --run runs/demo --port 8799

        poemetric survey links --run runs/paper --base-url https://rate.example.org
    """
    if port is not None and base_url is not None:
        raise error_exit("--port and --base-url: give one (--base-url holds the port)")
    rater_links, admin, base = _links(
        run, survey, base_url or (None if port is None else f"http://127.0.0.1:{port}")
    )
    if base_url is None and port is None:
        err_console.print(
            f"links for {base} (--base-url or --port for another address)",
            markup=False, highlight=False, soft_wrap=True,
        )  # fmt: skip
    _print_links(rater_links, admin)


@survey_app.command("serve")
def serve(
    run: Path = RunOption,
    survey: str = SurveyOption,
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Interface to bind (default: local only)."
    ),
    port: int = typer.Option(8765, "--port", "-p", min=1, max=65535, help="Port."),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help="Address raters will use, for the printed links (`survey links` reuses it).",
    ),
) -> None:
    """Serve the survey to raters: one page per poem, answers saved as they are given,
    resumable, with an admin page (progress and agreement). Stop with Ctrl-C; answers are kept.
    The links' address is kept in the run: `survey links` prints the same links again.

    Examples:

        poemetric survey serve --run runs/demo --port 8765

        poemetric survey serve --run runs/paper --base-url https://rate.example.org
    """
    from poemetric.cli import survey_address

    try:
        import uvicorn
        from starlette import requests as starlette_requests

        from poemetric.survey.web import create_app
    except ImportError as exc:
        raise error_exit(
            f"the survey web app needs its extra: pip install 'poemetric[survey]' ({exc})"
        ) from exc
    # Starlette's own test for a form parser (getattr: a Starlette that drops the name serves on)
    if getattr(starlette_requests, "parse_options_header", True) is None:
        # Starlette and uvicorn installed without the extra (by FastAPI, say): the pages were
        # served, and every answer a rater sent was refused as "malformed form data".
        raise error_exit(
            "the survey web app needs its extra: pip install 'poemetric[survey]' (python-multipart, "
            "which reads the answers raters send, is not installed)"
        )
    store_path = run / DB_NAME  # read-only as RunStore judges it, without opening it twice
    if store_path.exists() and not writable(store_path):  # every answer is a write
        raise error_exit(read_only_message(store_path))
    served, note = survey_address.served_base(host, port)
    rater_links, admin, base = _links(run, survey, base_url or served)
    sock = survey_address.listening_socket(host, port)
    with existing_run(run) as store:  # once bound: a serve that failed leaves the last address
        survey_address.remember(store, survey, base)
    if host not in survey_address.LOCAL_HOSTS:
        warning = survey_address.SERVE_WARNING.format(host=escape(host))
        console.print(warning + ("" if base_url else escape(note)))  # an IPv6 [address] is text
    _print_links(rater_links, admin)
    config = uvicorn.Config(
        create_app(run, survey), host=host, port=port, log_level="warning", server_header=False
    )
    with suppress(KeyboardInterrupt):  # Ctrl-C stops the server: a normal end, as in uvicorn.run
        uvicorn.Server(config).run(sockets=[sock])


def _author_hint(store: RunStore, name: str, authors: Iterable[str]) -> str:
    """The display-name hint of `--authors NAME` (the analysis's labels, loaded on an error only)."""
    from poemetric.analysis.labels import author_hint

    return author_hint(store, name, authors)

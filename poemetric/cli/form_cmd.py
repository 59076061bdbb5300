"""`poemetric form`: rule-based form checks (files, one poem, or a run's generations).

The checker is imported inside the commands: `poemetric --help` and every other command start
without loading it (and `form check` loads only what it uses).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.beside_generate import generate_watched, say_generate_was_at_work
from poemetric.cli.form_check_output import list_rows, output_separator, row_progress
from poemetric.cli.form_lexicon import LexiconOption, lexicon_in_use, other_lexicon_note
from poemetric.cli.form_scan_input import (
    SCAN_FOLDER,
    _known_form,
    _one_poem,
    _poem_file_text,
    _readable_request,
    _table_of_poems,
    say_stdin_is_read,
)
from poemetric.cli.form_verdict import print_verdict
from poemetric.cli.markup import plain, plain_cells
from poemetric.cli.options import (
    ProgressOption,
    RunOption,
    error_exit,
    existing_run,
    not_standard_output,
)
from poemetric.cli.output import OutputError, replaced_on_success
from poemetric.cli.output_paths import not_the_input, output_option
from poemetric.cli.stale_outputs import form_outputs, stale_outputs_note, stored_verdicts
from poemetric.form.blas import ask_one_blas_thread
from poemetric.form_defaults import DEFAULT_THRESHOLD
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted, plural

form_app = typer.Typer(
    help="Rule-based form checks: meter, rhyme and the fixed-form rules of the seven forms.\n\n"
    "  poemetric form run --run runs/demo\n\n"
    "  poemetric form check poems.csv --output checks.jsonl\n\n"
    "  poemetric form scan poem.txt --form sonnet",
    no_args_is_help=True,
)
app.add_typer(form_app, name="form")
console = Console(emoji=False)
err_console = Console(emoji=False, stderr=True)

ThresholdOption = typer.Option(
    DEFAULT_THRESHOLD, "--threshold", "-t", min=0.0, max=1.0, help="Pass mark for every score."
)
JobsOption = typer.Option(
    0,
    "--jobs",
    "-j",
    min=0,
    help="Worker processes: 0 = one per 1,000 poems, up to the CPUs available; 1 = no workers. "
    "Results and their order do not depend on it.",
)


@form_app.command("check")
def check_command(
    input_path: Path = typer.Argument(
        ...,
        help="CSV, TSV, JSONL or Parquet: the poem (content, text, poem, or a raw answer in "
        "response), form, and optionally meter (meter_pattern), rhyme (rhyme_pattern), id.",
    ),
    output: Path = output_option(
        ...,
        "--output",
        "File to write, one JSON line per row; a .csv or .tsv name writes a table instead "
        "(findings and facts as text, one a line in their cell).",
        file_name="checks.jsonl",
    ),
    threshold: float = ThresholdOption,
    extract: bool = typer.Option(
        True,
        "--extract/--no-extract",
        help="Pull the poem out of raw model answers first (code fences, chat preambles, "
        "titles, closing remarks), as the pipeline does; removals are listed per row.",
    ),
    jobs: int = JobsOption,
    progress: bool = ProgressOption,
    lexicon: Path | None = LexiconOption,
) -> None:
    """Check every row of a CSV/TSV/JSONL/Parquet file; write one JSON line (or CSV row) per row.

    A record that cannot be read (e.g. an unclosed quote in a CSV) becomes an output row whose
    `error` names the file and line; the records around it are still checked. The exit code is
    0 when every row was checked (passed or failed), 1 when some rows could not be (unreadable record, missing
    text or form, unknown form, unreadable meter or rhyme pattern), 2 when the file is unusable
    (missing, an unsupported type, not UTF-8 text, no rows at all, no text or form column). The rows that could
    not be checked, and the texts that failed as not a poem, are named on stderr (file:line, id,
    why; the first 20 of each). One poem in a text file: `poemetric form scan poem.txt --form
    sonnet`.

    A row of answers.jsonl: {"id": "a1", "form": "sonnet", "rhyme": "ABAB CDCD EFEF GG",
    "response": "Here is your sonnet: ..."}; each output row gives passed, the three scores, the
    threshold, a summary, the findings (explanation) and what the checker found (facts).

    Examples:

        poemetric form check poems.csv --output checks.jsonl

        poemetric form check answers.jsonl -o checks.jsonl --threshold 0.8

        poemetric form check human.csv -o checks.jsonl --no-extract

        poemetric form check big.jsonl -o checks.jsonl --jobs 8

        poemetric form check answers.jsonl -o checks.csv
    """
    why = "form check writes its rows to a file and its summary to the terminal"
    not_standard_output(output, "--output", why=why)
    not_the_input(output, input_path, "--output", "the poems would be replaced by their checks")
    _table_of_poems(input_path)
    separator = output_separator(output)
    ask_one_blas_thread()  # before the checker imports numpy
    from poemetric.form.io import FormInputError, check_file

    try:
        with (
            lexicon_in_use(lexicon, err_console),
            replaced_on_success(output) as handle,
            row_progress(err_console, progress) as advance,
        ):
            summary = check_file(
                input_path,
                handle,
                threshold=threshold,
                extract=extract,
                jobs=jobs,
                on_row=advance,
                separator=separator,
            )
    except (FormInputError, OutputError) as exc:
        raise error_exit(exc) from None
    for warning in summary.warnings:
        err_console.print(f"warning: {warning}", markup=False, highlight=False)  # names the file
    table = Table(title=f"Form check of {plain(input_path)} -> {plain(output)}")
    table.add_column("form")
    table.add_column("passed", justify="right")
    table.add_column("checked", justify="right")
    table.add_column("rate", justify="right")
    for form in sorted(summary.total):
        total, passed = summary.total[form], summary.passed[form]
        table.add_row(*plain_cells(form, passed, total, f"{passed / total:.2f}"))
    console.print(table)
    not_poems = (
        f"; {summary.not_poems} of the checked failed as text that is not a poem (empty, one "
        "line, non-Latin script)"
        if summary.not_poems
        else ""
    )
    rows = counted(summary.rows, "row")
    see = " (see the `error` field)" if summary.errors or summary.not_poems else ""
    console.print(f"{rows}, {summary.errors} could not be checked{not_poems}{see}")
    list_rows(
        err_console, "failed as text that is not a poem", summary.not_poems, summary.not_poem_rows
    )
    if summary.errors:
        list_rows(err_console, "could not be checked", summary.errors, summary.unchecked)
        raise typer.Exit(1)


@form_app.command("scan")
def scan_command(
    file: str = typer.Argument(
        "-",
        help="Poem text file, or - for standard input (also without FILE: from a terminal, "
        "paste the poem, then Ctrl-D).",
    ),
    form: str = typer.Option(
        ...,
        "--form",
        "-f",
        help="ballad, ghazal, limerick, pantoum, sestina, sonnet or villanelle.",
    ),
    meter: str | None = typer.Option(None, "--meter", "-m", help="e.g. 'iambic pentameter'."),
    rhyme: str | None = typer.Option(None, "--rhyme", help="e.g. 'ABAB CDCD EFEF GG'."),
    threshold: float = ThresholdOption,
    extract: bool = typer.Option(
        True,
        "--extract/--no-extract",
        help="Pull the poem out of a raw model answer first, as `form check` does; what was "
        "removed is listed above the table.",
    ),
    lexicon: Path | None = LexiconOption,
) -> None:
    """Show one poem line by line (syllables, scansion, fit, end word) with the verdict.

    A raw model answer (preamble, title, code fences, closing remarks) is scanned as `form
    check` checks it: the poem is taken out of it first (--no-extract scans the text as given).
    Under the table: the verdict, what the checker found (the scheme it chose...) and each
    finding. The exit code is 0 when the poem was checked, PASS or FAIL (the verdict says
    which), 1 when the text is no poem to scan (empty, one line, not in Latin script: a FAIL),
    2 when the file or the request is unusable (missing file, not UTF-8, unknown form,
    unreadable rhyme pattern, a malformed --lexicon). A meter is read as `form check` reads
    one: in part ('iambic pentameter (loose)'), or left unscored with a note ('Accentual').

    Examples:

        poemetric form scan poem.txt --form sonnet

        poemetric form scan limerick.txt --form limerick --rhyme AABBA

        poemetric form scan - --form ballad --meter "common meter" < poem.txt
    """
    ask_one_blas_thread()  # before the checker imports numpy
    from poemetric.form import adapters
    from poemetric.form.checker import check_poem
    from poemetric.form.forms import SONNET_METER
    from poemetric.form.parsing import end_word, parse_poem
    from poemetric.form.scan_letters import scan_letters

    _known_form(form)
    _readable_request(rhyme)
    if file == "-":
        # The bytes, read as a file's are: a Windows-1252 poem piped in was decoded by the
        # locale (garbled `caf\udce9` under C.UTF-8), and a byte-order mark kept as a letter.
        say_stdin_is_read(sys.stdin, form)
        stdin = getattr(sys.stdin, "buffer", None)
        data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")
        text = _poem_file_text("standard input", data)
    else:
        path = Path(file)
        if not path.is_file():
            reason = SCAN_FOLDER if path.is_dir() else "no such file"
            raise error_exit(f"{file}: {reason}")
        _one_poem(file, path.suffix.lower())
        text = _poem_file_text(file, path.read_bytes())
    _one_poem(file, None, text)
    if extract:
        from poemetric.extraction import extract_poem

        extracted = extract_poem(text)
        text = extracted.poem
        for note in extracted.notes:
            console.print(f"extraction: {note}", markup=False, highlight=False, soft_wrap=True)
    with lexicon_in_use(lexicon, err_console):
        result = check_poem(text, form, meter, rhyme, threshold=threshold)
        poem = parse_poem(text)
        spec, reading = adapters.read_meter(meter)
        if spec is None and result.form == "sonnet" and not reading.unscored:
            spec = SONNET_METER
        shown = scan_letters([end_word(line) for line in poem.lines])
        table = Table(
            title=plain(
                f"{result.form}" + (f", {meter}" if meter else "") + (f", {rhyme}" if rhyme else "")
            )
        )
        columns = ["#", "line", "syl", "scansion", "fit", "end word", "rhyme"]
        notes = any(shown.notes)  # eye rhymes: a letter of their own, and a note column
        for column in [*columns, "note"] if notes else columns:
            table.add_column(column, justify="right" if column in {"#", "syl", "fit"} else "left")
        for i, line in enumerate(poem.lines):
            fit = (
                f"{adapters.spec_fit(line, spec)[0]:.2f}"
                if spec is not None and not spec.beats
                else str(adapters.beats(line)) + "b"
            )
            table.add_row(  # a poem line is text: `[chorus]`, `[sic]` were read as markup
                *plain_cells(
                    i + 1,
                    line,
                    adapters.syllables(line),
                    adapters.scansion(line),
                    fit,
                    end_word(line),
                    shown.letters[i],
                    *([shown.notes[i]] if notes else []),
                )
            )
        if poem.lines:  # an empty text: no empty table above "not checked: empty poem text"
            console.print(table)
        print_verdict(console, result)
        if result.error:
            raise typer.Exit(1)


@form_app.command("run")
def run_command(
    run: Path = RunOption,
    threshold: float = ThresholdOption,
    force: bool = typer.Option(
        False, "--force", help="Re-check rows already checked by this version."
    ),
    jobs: int = JobsOption,
    progress: bool = ProgressOption,
    lexicon: Path | None = LexiconOption,
) -> None:
    """Form-check every successful generation of a run (the pipeline's form stage).

    Rows already checked by this checker version at this --threshold are skipped; another
    --threshold re-checks them all (no --force needed). Then run analyze, figures and report
    again: what they wrote holds the earlier verdicts.

    Examples:

        poemetric form run --run runs/paper

        poemetric form run --run runs/paper --threshold 0.8
    """
    ask_one_blas_thread()  # before the checker imports numpy
    from poemetric.cli.interrupt import checks_interrupted
    from poemetric.form.stage import run_form_stage, stored_report

    with (
        checks_interrupted(run, force),
        existing_run(run) as store,
        lexicon_in_use(lexicon, err_console),
        generate_watched(store) as generating,
    ):
        outputs = form_outputs(store.run_dir)  # none: no verdicts to compare
        before = stored_verdicts(store) if outputs else None
        report = run_form_stage(
            store,
            threshold=threshold,
            force=force,
            jobs=jobs,
            progress=progress,  # a bar on a terminal, a line now and then in a log file
            console=err_console,
        )
        stored = report.checked == 0 and report.skipped > 0
        shown = stored_report(store) if stored else report
        changed = bool(outputs) and report.checked > 0 and stored_verdicts(store) != before
        stale = stale_outputs_note(store.run_dir, outputs) if changed else None
    if stored:
        every = plural(
            report.skipped, "the 1 generation was", f"all {report.skipped} generations were"
        )
        console.print(
            f"{every} already checked (--force checks them again); their stored verdicts:",
            highlight=False,
            soft_wrap=True,
        )
    table = Table(title=f"Form checks in {plain(run)}")
    for column in ("author", "passed", "checked", "rate"):
        table.add_column(column, justify="left" if column == "author" else "right")
    for author in author_order(shown.total_by_author):
        total = shown.total_by_author[author]
        table.add_row(
            *plain_cells(
                author, shown.passed_by_author[author], total, f"{shown.pass_rate(author):.2f}"
            )
        )
    console.print(table)
    console.print(
        f"checked {report.checked}, skipped {report.skipped} (already checked), errors {report.errors}"
        + other_lexicon_note(report.other_lexicon)
    )
    if stale:
        console.print(stale, highlight=False, markup=False, soft_wrap=True)
    say_generate_was_at_work(generating, "checked", console)

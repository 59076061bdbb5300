"""`poemetric ghostwriting`: rhyme density, uniqueness and near-copies (`metrics`, `score`).

The protocol commands (`style-match`, `sheets`, `import-lines`) are in ghostwriting_protocols_cmd.
Heavy libraries are imported inside the commands (CLI start-up time).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.fitted_table import fitted_table
from poemetric.cli.markup import plain
from poemetric.cli.options import (
    ProgressOption,
    RunOption,
    error_exit,
    existing_file,
    existing_run,
    no_poems_yet,
    unknown_choice,
)
from poemetric.cli.output_paths import output_option, run_output_folder
from poemetric.text.plural import counted

if TYPE_CHECKING:
    import pandas as pd


ghostwriting_app = typer.Typer(
    help=(
        "Ghostwriting measures (Potash et al.): rhyme density, uniqueness against a reference "
        "corpus, near-copies, style matching by an LLM judge, line-level fluency/coherence sheets. "
        "Definitions: docs/ghostwriting.md.\n\n"
        "  poemetric ghostwriting metrics --run runs/demo\n\n"
        "  poemetric ghostwriting score poem.txt\n\n"
        "  poemetric ghostwriting style-match --run runs/demo --judge gpt-4o --dry-run"
    ),
    no_args_is_help=True,
)
app.add_typer(ghostwriting_app, name="ghostwriting")
# Paths and file:line messages are never hard-wrapped.
console = Console(emoji=False, soft_wrap=True)
err_console = Console(emoji=False, soft_wrap=True, stderr=True)

#: Default of --threshold (poemetric.ghostwriting.uniqueness.NEAR_COPY_THRESHOLD, not imported
#: here; a test keeps the two equal).
NEAR_COPY_DEFAULT = 0.7
PHONETICS = ("cmu", "espeak")


def _phonetics(value: str) -> str:
    if value not in PHONETICS:
        raise unknown_choice("--raplyzer-phonetics", value, PHONETICS)
    return value


PhoneticsOption = typer.Option(
    "cmu",
    "--raplyzer-phonetics",
    callback=_phonetics,
    help="Vowels for the Raplyzer measure: 'cmu' (CMUdict + letter-to-sound) or 'espeak' "
    "(eSpeak NG, as the original; needs espeak-ng installed).",
)
WindowOption = typer.Option(
    3, "--window", min=0, help="Lines above a line searched for its rhymes (paper variant)."
)


def _number(value: object, digits: int = 3) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def frame_table(
    frame: pd.DataFrame, title: str, columns: dict[str, str], width: int | None = None
) -> Table:
    """A rich table of `frame`'s `columns` (name -> header) fitted to `width` (default: the
    terminal's) by `fitted_table`; `title` is markup, the cells text."""
    rows = [[_number(row[name]) for name in columns] for row in frame.to_dict("records")]
    return fitted_table(title, list(columns.values()), rows, width or console.width)


SUMMARY_COLUMNS = {
    "author": "author",
    "poems": "poems",
    "rhyme_density": "rhyme density",
    "rhyme_density_raplyzer": "Raplyzer",
    "uniqueness": "uniqueness",
    "uniqueness_max": "max",
    "near_copies": "near-copies",
}


@ghostwriting_app.command("metrics")
def metrics_command(
    run: Path = RunOption,
    reference: list[Path] = typer.Option(
        [],
        "--reference",
        help="Extra reference corpus: a folder of .txt files, a .txt file, or a CSV/TSV/JSONL/"
        "Parquet table with a text or content column (repeatable).",
    ),
    no_dataset: bool = typer.Option(
        False, "--no-dataset", help="Leave the run's dataset poems out of the reference corpus."
    ),
    exclude_original: bool = typer.Option(
        False,
        "--exclude-original",
        help="Compare a generated poem with the corpus minus the human poem it was prompted with.",
    ),
    threshold: float = typer.Option(
        NEAR_COPY_DEFAULT,
        "--threshold",
        min=0.0,
        max=1.0,
        help="Similarity at or above which a poem is flagged as a near-copy.",
    ),
    phonetics: str = PhoneticsOption,
    window: int = WindowOption,
    out: Path | None = output_option(
        None, "--out", "Output folder (default RUN/analysis).", folder=True
    ),
    progress: bool = ProgressOption,
) -> None:
    """Rhyme density (paper and Raplyzer variants), uniqueness and near-copies per poem and per
    author, written as ghostwriting.csv (+ .md, .tex) and ghostwriting_poems.csv; `analyze` writes
    the same tables with the defaults. Answers that are not poems (empty, a refusal, a single
    line, or not in Latin script) are left out, as the judge stage leaves them unjudged; the
    notes count them per author.

    Examples:

        poemetric ghostwriting metrics --run runs/demo

        poemetric ghostwriting metrics --run runs/paper --reference corpus.jsonl

        poemetric ghostwriting metrics --run runs/paper --exclude-original

        poemetric ghostwriting metrics --run runs/paper --raplyzer-phonetics espeak
    """
    from poemetric.analysis.labels import run_labels
    from poemetric.analysis.poems_only import not_poems_by_author
    from poemetric.analysis.run import PER_POEM_TABLES
    from poemetric.ghostwriting.metrics import GhostwritingOptions
    from poemetric.ghostwriting.raplyzer import EspeakUnavailable
    from poemetric.ghostwriting.references import ReferenceCorpusError, load_reference_corpora
    from poemetric.ghostwriting.tables import (
        ghostwriting_caption,
        ghostwriting_tables,
        load_generations,
    )
    from poemetric.progress_lines import step_progress
    from poemetric.tables.write import presentable, write_table

    if no_dataset and not reference:
        raise error_exit(
            "--no-dataset leaves no reference corpus: give at least one --reference (a file or "
            "folder of poems), or leave out --no-dataset"
        )
    destination = run_output_folder(run, out, "analysis")
    try:
        extra = load_reference_corpora(reference)
    except ReferenceCorpusError as error:
        raise error_exit(f"reference corpus: {error}") from error
    for note in extra.notes:  # a table read as Windows-1252 (Excel's "CSV" on Windows)
        err_console.print(f"warning: {note}", markup=False, highlight=False)
    if extra.empty:  # one stray empty file aborted the whole command
        err_console.print(
            f"warning: skipped {counted(len(extra.empty), 'empty reference file')}: "
            + ", ".join(map(str, extra.empty)),
            markup=False,
            highlight=False,
        )
    options = GhostwritingOptions(
        extra_references=tuple(extra.texts),
        dataset_references=not no_dataset,
        exclude_original=exclude_original,
        threshold=threshold,
        raplyzer_phonetics="espeak" if phonetics == "espeak" else "cmu",
        window_lines=window,
    )
    with existing_run(run) as store:
        generations, labels = load_generations(store), run_labels(store)
        try:
            with step_progress(enabled=progress) as shown:
                result = ghostwriting_tables(
                    store, generations, options, progress=shown, label=labels.author
                )
        except EspeakUnavailable as error:
            raise error_exit(error) from error
        if "ghostwriting" not in result.tables:
            raise no_poems_yet(run, store)
    written: list[Path] = []
    left_out = not_poems_by_author(generations, labels.author)
    for name, frame in result.tables.items():  # written as `analyze` writes them
        if name in PER_POEM_TABLES:
            written += write_table(frame, destination, name, formats=("csv",))
            continue
        caption = ghostwriting_caption(name, left_out)
        shown_frame = presentable(frame, author_name=labels.author, rater_name=labels.judge)
        written += write_table(frame, destination, name, caption=caption, shown=shown_frame)
    per_author = result.tables["ghostwriting"]
    named = per_author.assign(author=per_author["author"].map(labels.author))  # as its files
    console.print(frame_table(named, "Ghostwriting per author", SUMMARY_COLUMNS))
    for note in result.notes:
        console.print(f"[yellow]note:[/yellow] {plain(note)}")
    if reference:
        skipped = f" ({counted(len(extra.empty), 'empty file')} skipped)" if extra.empty else ""
        console.print(
            f"reference corpus: {counted(len(extra.texts), 'text')} from --reference{skipped}",
            markup=False,
        )
    console.print(f"wrote {len(written)} files to {destination}", markup=False)


def _one_poem_text(path: Path) -> str:
    """The poem of a text file; a file of poems (CSV/TSV/JSONL/Parquet) or one without text is
    unusable input: it was measured as one poem (a CSV's rows as verse), or scored 0 syllables
    with a Raplyzer density of 0 and exit status 0."""
    from poemetric.data.io import SUPPORTED_SUFFIXES

    if path.suffix.lower() in SUPPORTED_SUFFIXES:
        raise error_exit(
            f"{path}: is a {path.suffix.lstrip('.').upper()} file, not a poem's text; `score` "
            "reads text files, one poem each; `ghostwriting metrics --run RUN` measures a run's "
            "poems"
        )
    from poemetric.data.text_files import TextFileError, read_text_file

    try:
        read = read_text_file(path)  # Notepad's "ANSI" (Windows-1252) too, with a warning
    except TextFileError as error:
        raise error_exit(error) from None
    if read.warning is not None:
        err_console.print(f"warning: {read.warning}", markup=False, highlight=False)
    text = read.text
    if not text.strip():
        raise error_exit(f"{path}: no poem text (the file is empty or blank)")
    return text


def _poem_files(paths: list[Path]) -> list[Path]:
    """`paths` with each folder replaced by its `.txt` files in name order (not recursive), as
    `metrics --reference` reads a folder; a folder without one is refused (exit 2)."""
    files: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        inside = sorted(f for f in path.iterdir() if f.suffix.lower() == ".txt" and f.is_file())
        if not inside:
            raise error_exit(f"poem folder {path}: no .txt files in it")
        files.extend(inside)
    return files


@ghostwriting_app.command("score")
def score_command(
    files: list[Path] = typer.Argument(
        ...,
        help="Text files, one poem each (one line per line), or folders of .txt files.",
    ),
    phonetics: str = PhoneticsOption,
    window: int = WindowOption,
    rhymes: bool = typer.Option(False, "--rhymes", help="List the rhymes found in each poem."),
    reference: list[Path] = typer.Option(
        [],
        "--reference",
        help="Reference corpus for uniqueness (repeatable): a folder of .txt files, a .txt file, "
        "or a CSV/TSV/JSONL/Parquet table with a text or content column. Without it there is no "
        "uniqueness: it is the similarity to the nearest text of such a corpus.",
    ),
    threshold: float = typer.Option(
        NEAR_COPY_DEFAULT,
        "--threshold",
        min=0.0,
        max=1.0,
        help="With --reference: uniqueness at or above which a poem is a near-copy.",
    ),
) -> None:
    """Both rhyme densities of single poems, with the parts they are computed from, and their
    type-token ratio (TTR, as `analyze` measures it); with
    --reference, also their uniqueness (highest tf-idf similarity to a text of that corpus,
    1.0 = a copy) and the nearest text.

    Examples:

        poemetric ghostwriting score poem.txt

        poemetric ghostwriting score drafts/*.txt --rhymes --raplyzer-phonetics espeak

        poemetric ghostwriting score my-poems/    # every .txt file in the folder

        poemetric ghostwriting score my-poems/ --reference corpus.csv
    """
    from poemetric.ghostwriting.language import not_english_reason
    from poemetric.ghostwriting.own_poems import NO_REFERENCE
    from poemetric.ghostwriting.raplyzer import EspeakUnavailable, raplyzer_density
    from poemetric.ghostwriting.rhyme_density import rhyme_density
    from poemetric.text.tokens import tokenize, type_token_ratio

    headers = ["file", "syllables", "rhymed", "unweighted", "entropy w", "density", "Raplyzer",
               "TTR"]  # fmt: skip
    rows: list[list[str]] = []  # the file folded, never cut: `drafts/so…` twice said nothing
    files = _poem_files(files)
    for path in files:  # every file checked before any is scored
        existing_file(path, "poem file")
    found: list[tuple[Path, tuple[tuple[str, str], ...]]] = []
    foreign: list[str] = []
    texts: list[tuple[Path, str]] = []
    for path in files:
        text = _one_poem_text(path)
        if (why := not_english_reason(text)) is not None:
            foreign.append(f"{path} ({why})")
        measured = rhyme_density(text, window_lines=window)
        try:
            raplyzer = raplyzer_density(
                text, phonetics="espeak" if phonetics == "espeak" else "cmu"
            )
        except EspeakUnavailable as error:
            raise error_exit(error) from error
        rows.append(  # a file `drafts/[v2].txt` is named as it is (plain_cells)
            [
                str(path),
                str(measured.syllables),
                str(measured.rhymed_syllables),
                _number(measured.raw),
                _number(measured.entropy_weight),
                _number(measured.density),
                _number(raplyzer),
                _number(type_token_ratio(tokenize(text))),  # as `analyze` measures a poem
            ]
        )
        found.append((path, measured.rhymes))
        texts.append((path, text))
    said = _add_uniqueness(headers, rows, texts, reference, threshold) if reference else []
    console.print(fitted_table(None, headers, rows, console.width))
    for line in said:
        console.print(line, markup=False, highlight=False)
    if foreign:  # once for all files: the numbers of these say little about rhyme
        err_console.print(
            "warning: mostly not English: "
            + "; ".join(foreign)
            + ". Both rhyme densities read every word with English pronunciations "
            "(docs/ghostwriting.md)",
            markup=False,
            highlight=False,
        )
    if not reference:  # said, not left out silently: `metrics` has the column
        err_console.print(f"note: {NO_REFERENCE}", markup=False, highlight=False)
    if rhymes:
        for path, pairs in found:
            listed = "; ".join(f"{a} / {b}" for a, b in pairs) or "none"
            console.print(f"{path}: {listed}", highlight=False, markup=False)


def _add_uniqueness(
    headers: list[str],
    rows: list[list[str]],
    poems: list[tuple[Path, str]],
    corpora: list[Path],
    threshold: float,
) -> list[str]:
    """`score --reference`: a uniqueness column; the lines naming each poem's nearest text."""
    from poemetric.ghostwriting.own_poems import own_poems_uniqueness
    from poemetric.ghostwriting.references import ReferenceCorpusError

    try:
        measured = own_poems_uniqueness(poems, corpora, threshold)
    except ReferenceCorpusError as error:
        raise error_exit(f"reference corpus: {error}") from error
    for note in measured.notes:
        err_console.print(f"warning: {note}", markup=False, highlight=False)
    headers.append("uniqueness")
    for row, nearest in zip(rows, measured.nearest, strict=True):
        row.append(_number(nearest.similarity))
    return measured.lines

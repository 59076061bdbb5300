"""The run-data notes on the stored generations themselves (`load_run_data`): those that failed
or hold no poem, those cut at the token limit, those the provider ended."""

from __future__ import annotations

from collections.abc import Callable

from poemetric.hints import program
from poemetric.store import RunStore
from poemetric.store.cut_poems import CutPoems
from poemetric.store.withheld import WithheldAnswers
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted, plural


def failed_generations_note(store: RunStore, label: Callable[[str], str] = str) -> str | None:
    """The note on the generations that failed or hold no poem, per author (`GPT-X 2 of 163`,
    each named by `label`, as the tables name it), or None when there are none. Each is left out of every table, so it is missing from its
    model's pass rate and scores: the note said only how many, not whose."""
    rows = store.query(
        "SELECT author, SUM(status != 'ok' OR poem IS NULL), COUNT(*) FROM generations "
        "GROUP BY author HAVING SUM(status != 'ok' OR poem IS NULL) > 0"
    )
    counts = {str(author): (int(failed), int(total)) for author, failed, total in rows}
    if not counts:
        return None
    failed = sum(bad for bad, _ in counts.values())
    listed = ", ".join(
        f"{label(author)} {counts[author][0]:,} of {counts[author][1]:,}"
        for author in author_order(counts)
    )
    return (
        f"{counted(failed, 'generation')} failed or {plural(failed, 'holds', 'hold')} no poem "
        f"and {plural(failed, 'is', 'are')} left out (by author, {listed} generations): "
        f"{plural(failed, 'it is', 'each is')} missing from its author's pass rate and scores"
    )


def cut_poems_note(cut: list[CutPoems], label: Callable[[str], str] = str) -> str:
    """The run-data note on the generated poems that were cut at the token limit, each model
    named by `label` (the model files and the commands keep its key, the name typed)."""
    total = sum(entry.cut for entry in cut)
    own = [entry for entry in cut if not entry.demo_capped]
    advice = [_demo_cap_advice(entry, label) for entry in cut if entry.demo_capped]
    if own:
        files = "the model file" if len(own) == 1 else "the models' files"
        of = f" of {', '.join(entry.author for entry in own)}" if advice else ""
        advice.insert(0, f"raise settings.max_tokens in {files}{of} and generate into a new --run")
    return (
        f"{counted(total, 'generated poem')} {plural(total, 'was', 'were')} cut at the token "
        f"limit ({'; '.join(entry.listed(label(entry.author)) for entry in cut)}) and "
        f"{plural(total, 'is', 'are')} scored as written: the form check and the judges see "
        f"an unfinished poem, which weighs on its model's scores; {'; '.join(advice)}"
    )


def _demo_cap_advice(entry: CutPoems, label: Callable[[str], str]) -> str:
    """What to do of a model's poems that `demo --local` capped (not its model file)."""
    own = (
        f"its model file's max_tokens {entry.file_max_tokens:,}"
        if entry.file_max_tokens
        else "its model file's limit"
    )
    return (
        f"`demo --local` caps {label(entry.author)} at {entry.limits()} to stay short; {own} applies "
        f"to `{program()} generate --models {entry.author}` in a run of your own"
    )


def withheld_note(withheld: list[WithheldAnswers], label: Callable[[str], str] = str) -> str:
    """The run-data note on the generated answers that the provider, not the model, ended, each
    model named by `label`."""
    total, empty = sum(entry.ended for entry in withheld), sum(e.empty for e in withheld)
    return (
        f"{counted(total, 'generated answer')} {plural(total, 'was', 'were')} ended by the "
        "provider, not the model, by a safety or content filter, a refusal or another of its "
        f"stops ({'; '.join(e.listed(label(e.author)) for e in withheld)}): {empty:,} empty "
        f"{plural(empty, 'one is not a poem', 'ones are not poems')} (a failed form check, left "
        "out of the judge and lexical measures), the others are analysed as written; read them "
        "beside their model's scores (generate into a new --run to ask again)"
    )

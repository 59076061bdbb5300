"""What `poemetric merge` says of a stage that covers only part of the merged run
(`poemetric.store.merge_coverage.StageGap`), and what to do about it."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from poemetric.hints import program, run_by_make, stage_command
from poemetric.store.merge_coverage import FORM, GENERATE, PROBE, StageGap
from poemetric.store.probe_pairs import PairRequest
from poemetric.text.plural import plural

#: stage -> (what it covers, what an uncovered one has, the command that covers the rest, what
#: it then does): formatted with the run (`into`), the model and the stage commands.
_STAGES = {
    "judge": ("poems", "no judgment of it", "{judge}", "judge them (only those are sent)"),
    "recognise": (
        "human poems",
        "no answer of it",
        "poemetric judge recognise --run {into} --judge {model}",
        "ask it about them (only those are sent)",
    ),
    "style-match": (
        "poems that can have a style-match trial",
        "no trial of it",
        "poemetric ghostwriting style-match --run {into} --judge {model}",
        "give them their trials (with the --trials and --seed it ran with; only those are sent)",
    ),
    FORM: ("poems", "no form check", "{form}", "check them (only those are checked)"),
}


def gap_line(gap: StageGap, into: Path) -> str:
    """Plain text: which of the merged run's poems a stage (and model) has no result for, where
    they come from when known, and the command that covers them."""
    if gap.stage == GENERATE:
        return _generation_line(gap, into)
    if gap.stage == PROBE:
        return _probe_line(gap, into)
    covers, lacks, command, does = _STAGES.get(
        gap.stage, ("poems", "no result of it", "its command on {into}", "cover them")
    )
    what = "form check" if gap.model is None else f"{gap.stage} of model {gap.model}"
    run = command.format(
        into=into,
        model=gap.model,
        judge=stage_command("judge", into, gap.model),
        form=stage_command("form", into),
    )
    if gap.options and not gap.elsewhere:  # under make, poemetric's other options go in ARGS
        given = " ".join(gap.options)
        run += f' ARGS="{given}"' if run_by_make() else f" {given}"
    if gap.unrecorded_in:
        came = (
            f"; {listed_stores(gap.unrecorded_in)} {plural(len(gap.unrecorded_in), 'holds', 'hold')} "
            f"results of it but no shard record of the {gap.stage} stage (it stopped partway "
            "there, or an older POEMetric wrote them)"
        )
    elif gap.model is None:
        came = ", poems of stores where it did not run"
    elif gap.recorded:  # the poems it was asked for: none was meant to be left out
        came = ", poems of stores where it did not run, or where it stopped before them"
    else:
        came = (
            ", poems of stores where it did not run or that it was not given (--authors, --limit)"
        )
    ignore = ""
    if gap.selection_unknown:
        came += (
            "; which poems it was asked for is unknown: it ran in a store written before "
            "POEMetric recorded a stage's --authors and --limit"
        )
        ignore = f" if {gap.model} was meant to cover them (--strict: exit 1 on such gaps)"
    if gap.options_note:
        came += f"; {gap.options_note}"
    asked = f" it was asked to cover ({' '.join(gap.options)})" if gap.options else ""
    if gap.elsewhere:
        asked = f" it was asked to cover ({' '.join((*gap.options, 'where it ran'))})"
    counts = _counts(gap.authors)
    held = (
        f"{gap.lacking:,} of the {gap.total:,} {covers}{asked} in {into} "
        f"{plural(gap.lacking, 'has', 'have')} {lacks} ({counts})"
    )
    if gap.short:
        few = sum(count for _, count in gap.short)
        asked_of = (
            f"{gap.samples} answers of it asked for (--trials times --samples)"
            if gap.stage == "style-match"
            else f"{gap.samples} samples of it asked for"
        )
        fewer = f"fewer than the {asked_of} ({_counts(gap.short)})"
        held = (
            f"{held}, and {few:,} {plural(few, 'has', 'have')} {fewer}"
            if gap.lacking
            else f"{few:,} of the {gap.total:,} {covers}{asked} in {into} "
            f"{plural(few, 'has', 'have')} {fewer}"
        )
        fewer_options = "--trials or --samples" if gap.stage == "style-match" else "--samples"
        came += f" (or where it ran with fewer {fewer_options})"
    if gap.elsewhere:  # the same options pick other poems in the merged run
        return (
            f"{what}: {held}: its --limit picked them among the poems of the store it ran in "
            f"(not the first poems of {into}), and it stopped before them there; the merge was "
            "written: run its command there again, with the same options (a resume pays for "
            f"nothing stored), and merge that store into {into} again"
        )
    return f"{what}: {held}{came}; the merge was written: run {run} to {does}{ignore}"


def _generation_line(gap: StageGap, into: Path) -> str:
    """A model's poems in none of the merged stores: where no merged store records the
    generate stage's shards, or where each records it through over fewer prompts or samples
    (or, where recorded, its stores were asked for different poems or samples)."""
    asked = "it was asked to write" if gap.recorded else "it is to write"
    lacking = (
        f"generate of model {gap.model}: {gap.lacking:,} of the {gap.total:,} poems {asked} "
        f"in {into} (one per prompt and sample) {plural(gap.lacking, 'is', 'are')} in "
        "none of the merged stores"
    )
    if gap.through and gap.recorded:
        return f"{lacking}{_asked_elsewhere(gap, into)}"
    if gap.through:  # each store records it through, over the prompts and samples it held
        run = _generate_commands(gap, into)
        held = (
            "; every store that ran it records it through, over the prompts and samples that "
            "store held, and one held fewer than "
            f"{into} (prepared with a smaller --limit, or run with fewer --samples)"
        )
        if gap.sharded:
            return (
                f"{lacking}{held}: part of a --shard K/N of it ran on fewer prompts; the merge "
                f"was written: run {run} to write them (a resume pays for nothing stored)"
            )
        return (
            f"{lacking}{held}; whether it was meant to write only those is unknown; the merge "
            f"was written: if it was to write them, run {run} (a resume pays for nothing "
            "stored; --strict: exit 1 on such gaps)"
        )
    if gap.unrecorded_in:
        why = "" if gap.recorded else " (or an older POEMetric, or a smaller --limit, wrote them)"
        where = (
            f"{listed_stores(gap.unrecorded_in)} {plural(len(gap.unrecorded_in), 'holds', 'hold')} "
            f"part of them and no shard record of the generate stage: it stopped partway there{why}"
        )
        store = plural(len(gap.unrecorded_in), "that store", "those stores")
        redo = (
            "run its generate command there again (a resume pays for nothing stored) and "
            f"merge {store} into {into} too"
        )
    else:
        where = "no merged store records the shards of the generate stage"
        redo = (
            "run its generate command again in the store where it ran (a resume pays for "
            f"nothing stored) and merge that store into {into} too"
        )
    return f"{lacking}; {where}; the merge was written: {redo}"


def _asked_elsewhere(gap: StageGap, into: Path) -> str:
    """Where every store records the model through over the poems and samples asked of it
    there: its stores (a --shard K/N's parts) were asked for different ones."""
    held = (
        "; every store that ran it records it through, over the poems and samples asked of it "
        "there (--limit, --samples), and none was asked for all of them"
        f"{' (its --shard K/N parts were asked for different ones)' if gap.sharded else ''}"
    )
    if gap.elsewhere:  # no --limit picks them in the merged run
        return (
            f"{held}; the merge was written: its --limit picked poems of the store where it ran "
            f"that are not the first poems of {into}: write them in a store whose first poems "
            f"they are, and merge that store into {into} too"
        )
    return (
        f"{held}; the merge was written: run {_generate_commands(gap, into)} to write them "
        "(only those asked for; a resume pays for nothing stored)"
    )


def _generate_commands(gap: StageGap, into: Path) -> str:
    """The generate command for each of the gap's option sets, joined: one per selection that
    lacks some."""
    command = f"poemetric generate --run {into} --models {gap.model}"
    return ", then ".join(
        " ".join((command, *options)) for options in gap.commands or (gap.options,)
    )


def gap_label(gap: StageGap) -> str:
    """The word a gap's line starts with: `incomplete` (exit 1), else a warning's."""
    if not gap.selection_unknown:
        return "incomplete"
    return "other pairs" if gap.stage == PROBE else "unknown selection"


def _counts(counts: Iterable[tuple[str, int]]) -> str:
    """`model-a 3, model-b 1,204`: each name with its count."""
    return ", ".join(f"{name} {count:,}" for name, count in counts)


def _probe_line(gap: StageGap, into: Path) -> str:
    """A chat scorer's pairs without an answer of it: of those it was asked to score (it
    stopped before them), or of the run's other scorers (it was run on other pairs)."""
    counts = _counts(gap.authors)  # by task
    shown = ", ".join(gap.examples) + (", ..." if gap.lacking > len(gap.examples) else "")
    pairs = f"{counts}; e.g. {shown}"
    run = ", then ".join(_probe_command(request, gap, into) for request in gap.probe_runs)
    answered = f"answers stored in {into} are not asked again"
    if gap.recorded:
        return (
            f"probe of scorer {gap.model}: {gap.lacking:,} of the {gap.total:,} pairs it was "
            f"asked to score in {into} {plural(gap.lacking, 'has', 'have')} no answer of it "
            f"({pairs}), pairs of stores where it did not run, or where it stopped before "
            f"them; the merge was written: run {run} to ask them ({answered})"
        )
    if not run:  # no store recorded the pairs files (an older POEMetric)
        run = _probe_command(None, gap, into)
        run += " with the pairs file they come from"
    return (
        f"probe of scorer {gap.model}: {gap.lacking:,} of the {gap.total:,} pairs of {into} "
        f"(asked of or answered by any scorer) {plural(gap.lacking, 'has', 'have')} no answer "
        f"of it ({pairs}): it was run on other pairs (another pairs file, --tasks or --limit; "
        "or, in a store written before POEMetric recorded them, unknown), so probe report "
        "compares it with the others over different pairs; the merge was written: if it is "
        f"to score them, run {run} ({answered}; --strict: exit 1 on such gaps)"
    )


def _probe_command(request: PairRequest | None, gap: StageGap, into: Path) -> str:
    """`probe run` of `request`'s pairs file and options with the gap's scorer on `into`."""
    file = shlex.quote(request.file) if request else "PAIRS.jsonl"
    output = request.output if request and request.output else "SCORES.jsonl"
    scorer = shlex.quote(str(gap.model))
    options = " ".join(request.options) if request else ""
    command = (
        f"{program()} probe run {file} --scorer {scorer} --run {shlex.quote(str(into))} "
        f"--output {shlex.quote(output)}"
    )
    return f"{command} {options}" if options else command


def listed_stores(stores: tuple[Path, ...]) -> str:
    return ", ".join(map(str, stores))

"""Run preparation: snapshot a dataset into a run store and build its prompts.

This is the first stage of every run: dataset -> prompts (+ the `human` author's poems). Later
stages (generate, form, judge, analyze, figures) read what this stage stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from poemetric.data import Dataset, Poem, load_dataset
from poemetric.hints import run_by_make
from poemetric.prompts import (
    GENERATION_TEMPLATE,
    PromptTemplate,
    RenderedPrompt,
    bundled_template,
    load_template,
    render_generation_prompt,
)
from poemetric.store import HUMAN_AUTHOR, RunStore, StoreError, generation_id_for, stable_id

#: `prepare_run`'s `limit` for every poem of the dataset, also on a run that holds fewer.
ALL_POEMS: Final = "all"
#: `prepare_run`'s `limit`: N (the first N poems), `ALL_POEMS`, or None (a new run: every poem;
#: an existing run: the poems it holds prompts for).
PoemLimit = int | Literal["all"] | None


@dataclass(frozen=True)
class PreparedRun:
    """`dataset` is the poems this call asked prompts for (the header's count); `poems_held`
    the poems the run holds prompts for once prepared, of the dataset's `poems_in_dataset`."""

    dataset: Dataset
    template_hash: str
    poems_added: int
    prompts_added: int
    poems_held: int
    poems_in_dataset: int


def head_limit(limit: PoemLimit) -> int | None:
    """`limit` as `Dataset.head` and the stages' job selection take it (None: no cut)."""
    return None if limit is None or limit == ALL_POEMS else limit


def prompt_id_for(poem_id: str, template_hash: str) -> str:
    return stable_id("prompt", poem_id, template_hash)


def prepare_run(
    store: RunStore,
    dataset_spec: str | Path | Dataset,
    *,
    limit: PoemLimit = None,
    template: str | Path | None = None,
    rendered: Sequence[tuple[Poem, RenderedPrompt]] | None = None,
) -> PreparedRun:
    """Store the dataset's poems, the rendered prompts and the human author's rows.

    `dataset_spec` is what `load_dataset` takes, or a dataset it loaded already.

    The whole dataset is stored as the run's snapshot; `limit` says which poems get prompts
    (and human rows): N, the first N poems; `ALL_POEMS`, every poem; None, every poem for a new
    run, and for a run that holds prompts already those it holds, adding none: a resume that
    leaves out the `--limit` the run was prepared with does not widen it to the whole dataset
    (which asked every model for every poem, paid calls nobody asked for); widening takes a
    bigger N or `ALL_POEMS`. `template` is the generation template (a bundled name or a
    file); when None, a run that already has prompts keeps the template it stored, and a new run
    uses the bundled `generation.jinja`. `rendered`: prompts the caller rendered already (a new
    run's, rendered before its store was made), taken where they are the prompts this call
    would render (the same poems, the same template), else rendered again.

    Idempotent: running it again adds nothing new. A run keeps one dataset and one generation
    template; preparing a run with another dataset, or with a changed template, is refused, so
    results of different datasets or prompts never mix in one store (a second template would add
    a second prompt, and a second human row, for every poem).
    """
    full = dataset_spec if isinstance(dataset_spec, Dataset) else load_dataset(dataset_spec)
    chosen = None if template is None else load_template(template)
    # The checks and the writes are one transaction: another process preparing the same new run
    # at the same moment (two shards started together) waits for it, then sees this one's
    # dataset and template and is refused, or finds nothing left to add.
    with store.transaction():
        recorded = _check_one_dataset(store, full)
        held = _held_poems(store)
        dataset = full.only(held) if limit is None and held else full.head(head_limit(limit))
        if chosen is not None:  # as the run holds it (prepared before a BOM was dropped)
            chosen = chosen.as_stored(_prompt_hashes(store))
        loaded = (
            chosen or stored_generation_template(store) or bundled_template(GENERATION_TEMPLATE)
        )
        if rendered is None or not _rendered_as(rendered, dataset, loaded):
            rendered = render_prompts(dataset, loaded)
        if rendered:
            _check_one_template(store, loaded.sha256, loaded.name)
            store.add_template(loaded.name, loaded.text)
        # The whole dataset is the run's snapshot (offline generators such as the Markov
        # baseline train on it); `limit` only decides which poems get prompts.
        poems_added = store.add_poems(full.store_rows())
        prompts_added = store.add_prompts(
            {
                "prompt_id": prompt_id_for(poem.poem_id, prompt.template_hash),
                "poem_id": poem.poem_id,
                "template_hash": prompt.template_hash,
                "text": prompt.text,
            }
            for poem, prompt in rendered
        )
        for poem, prompt in rendered:
            prompt_id = prompt_id_for(poem.poem_id, prompt.template_hash)
            store.save_generation(
                {
                    "generation_id": generation_id_for(prompt_id, HUMAN_AUTHOR, 0),
                    "prompt_id": prompt_id,
                    "poem_id": poem.poem_id,
                    "author": HUMAN_AUTHOR,
                    "sample_index": 0,
                    "status": "ok",
                    "provider": "human",
                    "provider_model": "human",
                    "template_hash": prompt.template_hash,
                    "response_text": poem.content,
                    "poem": poem.content,
                    "cost_usd": 0.0,
                }
            )
        if recorded:  # `path` as given (the report shows it); `absolute` for the hints
            store.set_meta(
                "dataset",
                {
                    "name": dataset.name,
                    "path": str(dataset.path),
                    "absolute": str(Path(dataset.path).absolute()),
                    "sha256": dataset.sha256,
                },
            )
    now_held = len(held | {poem.poem_id for poem in dataset.poems})
    return PreparedRun(dataset, loaded.sha256, poems_added, prompts_added, now_held, len(full))


def render_prompts(dataset: Dataset, template: PromptTemplate) -> list[tuple[Poem, RenderedPrompt]]:
    """Each poem of `dataset` with its generation prompt; a PromptError when one fails."""
    return [(poem, render_generation_prompt(poem, template)) for poem in dataset.poems]


def _rendered_as(
    rendered: Sequence[tuple[Poem, RenderedPrompt]], dataset: Dataset, template: PromptTemplate
) -> bool:
    """Whether `rendered` are `dataset`'s prompts from `template`, poem for poem."""
    return [poem.poem_id for poem, _ in rendered] == [
        poem.poem_id for poem in dataset.poems
    ] and all(
        prompt.template_hash == template.sha256 and prompt.name == template.name
        for _, prompt in rendered
    )


def stored_generation_template(store: RunStore) -> PromptTemplate | None:
    """The generation template a prepared run stored (None for a new run)."""
    rows = store.query(
        "SELECT t.name, t.text FROM templates t WHERE t.template_hash IN "
        "(SELECT DISTINCT template_hash FROM prompts) LIMIT 1"
    )
    if not rows:
        return None
    return PromptTemplate(name=str(rows[0]["name"]), text=str(rows[0]["text"]), path=store.path)


def _check_one_dataset(store: RunStore, dataset: Dataset) -> bool:
    """Refuse a dataset other than the run's: another one, or the run's own file changed since
    (a corrected annotation), which was refused as "not 'my_poems'" of a dataset 'my_poems'.

    The file is compared by content: one re-saved with other bytes that read as the same poems in
    the same order (CRLF line endings, a byte-order mark: a spreadsheet's save) is the run's
    dataset, though its sha256 differs. Returns whether to record the file as the run's (a new
    run, or the very file, moved or not); such a re-saved copy leaves the recorded file and its
    sha256 (which finds the release's errata) as they are, and so does a copy of the very bytes
    under another name, which renamed the run's dataset to the name of the last copy used."""
    recorded = store.get_meta("dataset")
    if recorded is None:
        return True
    if recorded.get("sha256") == dataset.sha256:
        return recorded.get("name") == dataset.name
    was = f"sha256 {str(recorded.get('sha256'))[:12]}…"
    now = f"sha256 {dataset.sha256[:12]}…"
    if recorded.get("name") != dataset.name:
        another = "RUN" if run_by_make() else "--run"  # make's variable under make
        raise StoreError(
            f"run {store.run_dir} was prepared from dataset {recorded.get('name')!r} ({was}), "
            f"not {dataset.name!r} ({now}); use another {another} directory"
        )
    differences = _differences(store, dataset)
    if differences is None:
        return False
    path = str(recorded.get("path") or "")
    changed = (
        f"and the file has changed since (it has {now})"
        if path == str(dataset.path)
        else f"and {dataset.path} is not that file as it was ({now})"
    )
    raise StoreError(
        f"run {store.run_dir} was prepared from dataset {dataset.name!r} "
        f"({f'{path}, ' if path else ''}{was}), "
        f"{changed}: {differences}. A run keeps the poems and annotations "
        "it was prepared from, so that every model answers the same prompts and is checked "
        "against the same annotations. For the changed file, use a new --run directory (docs/"
        'datasets.md, "Correcting your own dataset mid-study"); to go on with this run, put '
        "the file back as it was"
    )


def _differences(store: RunStore, dataset: Dataset) -> str | None:
    """`poem_differences` between the run's stored poems and `dataset` (None: the same)."""
    from poemetric.data.changes import poem_differences, stored_poems

    return poem_differences(stored_poems(store.conn), dataset)


def _held_poems(store: RunStore) -> set[str]:
    """The poems the run holds prompts for (none for a new run)."""
    return {str(r[0]) for r in store.query("SELECT DISTINCT poem_id FROM prompts")}


def _prompt_hashes(store: RunStore) -> list[str]:
    """The template hashes of the run's prompts (one, or none for a new run)."""
    return [str(r[0]) for r in store.query("SELECT DISTINCT template_hash FROM prompts")]


def _check_one_template(store: RunStore, template_hash: str, name: str) -> None:
    stored = _prompt_hashes(store)
    if stored and template_hash not in stored:
        raise StoreError(
            f"run {store.run_dir} was prepared with another generation prompt template "
            f"(sha256 {stored[0][:12]}…) than {name!r} (sha256 {template_hash[:12]}…): a run "
            "keeps one template so that every model answers the same prompts. Leave out "
            "--template to keep the run's own, or use another --run directory for the new one"
        )

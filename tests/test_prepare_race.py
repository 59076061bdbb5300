"""Two processes preparing the same new run at once (shards started together on one --run)."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from multiprocessing.queues import Queue
from pathlib import Path

import pytest

from poemetric.store import RunStore
from poemetric.store.db import DB_NAME

VARIANT = "Write a {{ form }}.\n"
POEMS = 2000


def _prepare(run: Path, dataset: str, template: str | None, said: Queue[str]) -> None:
    """One process: open the run, say so, prepare it; then say how that went."""
    from poemetric.pipeline import prepare_run

    try:
        with RunStore(run) as store:
            said.put("opened")
            prepare_run(store, dataset, template=template)
        said.put("ok")
    except Exception as error:
        said.put(f"{type(error).__name__}: {error}")


@pytest.mark.parametrize(
    ("first", "second", "refusal"),
    [
        (("demo", None), ("lear-limericks", None), "was prepared from dataset"),
        (("demo", "generation.jinja"), ("demo", "variant.jinja"), "another generation prompt"),
        (("demo", None), ("demo", None), None),
    ],
    ids=["datasets", "templates", "same"],
)
def test_processes_preparing_one_new_run_at_once_never_mix_two_preparations(
    tmp_path: Path,
    first: tuple[str, str | None],
    second: tuple[str, str | None],
    refusal: str | None,
) -> None:
    """Both processes checked the new run's dataset and template before either wrote, so both
    passed and the run held two datasets (16 + 38 poems, prompts and human rows) or two
    templates (two prompts and two human rows per poem). Another writer holds the store while
    both start, so that both get as far as they can before either writes."""
    (tmp_path / "variant.jinja").write_text(VARIANT, encoding="utf-8")
    run = tmp_path / "run"
    RunStore(run).close()
    holder = sqlite3.connect(run / DB_NAME, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    context = multiprocessing.get_context("spawn")
    said: Queue[str] = context.Queue()
    files = {"variant.jinja": str(tmp_path / "variant.jinja")}  # others: bundled, or None
    preparers = [
        context.Process(target=_prepare, args=(run, dataset, files.get(t or "", t), said))
        for dataset, t in (first, second)
    ]
    for preparer in preparers:
        preparer.start()
    assert [said.get(timeout=60) for _ in preparers] == ["opened", "opened"]
    time.sleep(0.5)  # both read the run (and, unfixed, rendered their prompts) meanwhile
    holder.execute("ROLLBACK")
    holder.close()
    results = [said.get(timeout=60) for _ in preparers]
    for preparer in preparers:
        preparer.join(timeout=60)
    refused = [result for result in results if result != "ok"]
    if refusal is None:
        assert refused == []
    else:
        assert len(refused) == 1 and refused[0].startswith("StoreError: "), results
        assert refusal in refused[0]
    with RunStore(run, create=False) as store:
        poems = store.count("poems")
        assert poems in {16, 38}  # demo's, or lear-limericks' poems: one dataset
        assert store.count("prompts") == store.count("generations") == poems
        assert store.count("templates") == 1


def _generate_with(run: Path, dataset: Path, template: Path, said: Queue[str]) -> None:
    """One `generate --run RUN --dataset DATASET --template TEMPLATE`, up to its preparation."""
    import typer

    from poemetric.cli.generate_cmd import open_prepared

    try:
        store, _ = open_prepared(run, str(dataset), None, str(template))
        store.close()
        said.put("ok")
    except typer.Exit as exit_:
        said.put(f"exit {exit_.exit_code}")


def test_a_failed_preparation_leaves_the_run_another_process_is_preparing(
    tmp_path: Path,
) -> None:
    """One `generate` has a template that fails to render for the dataset's last poem; another
    opens the same new run while the first renders, and prepares it. The first removed the store
    it had made (no dataset recorded yet) while the other had it open: that one reported
    success and went on writing into deleted files, and the run was gone."""
    from poemetric.data import load_dataset, write_dataset
    from poemetric.pipeline import prepare_run

    demo = load_dataset("demo").poems
    poems = [
        demo[i % len(demo)].model_copy(update={"poem_id": f"p{i:04d}", "title": f"Poem {i}"})
        for i in range(POEMS)
    ]
    poems[-1] = poems[-1].model_copy(update={"theme": "the last one"})
    dataset = load_dataset(write_dataset(poems, tmp_path / "poems.csv"))
    typo = tmp_path / "typo.jinja"
    typo.write_text("Write a {{ form }}.{% if theme == 'the last one' %}{{ metre }}{% endif %}\n")
    run = tmp_path / "run"
    context = multiprocessing.get_context("spawn")
    said: Queue[str] = context.Queue()
    failing = context.Process(target=_generate_with, args=(run, dataset.path, typo, said))
    failing.start()
    deadline = time.monotonic() + 60
    while not (run / DB_NAME).exists() and failing.is_alive() and time.monotonic() < deadline:
        time.sleep(0.001)  # unfixed, it made the store and renders its prompts now
    with RunStore(run) as store:  # the other process, as its `generate` opens the run
        prepare_run(store, dataset)
    assert said.get(timeout=60) == "exit 2"  # the typo: 'metre' is undefined
    failing.join(timeout=60)
    with RunStore(run, create=False) as store:
        assert store.count("generations", "author = 'human'") == POEMS
        assert store.get_meta("dataset")["name"] == "poems"


def test_a_transaction_inside_another_is_part_of_it(tmp_path: Path) -> None:
    """`prepare_run` makes the store's writes inside its own transaction: an inner one that
    fails undoes only its own writes, and the outer one's failure undoes them all."""
    with RunStore(tmp_path) as store:
        with store.transaction():
            store.set_meta("outer", 1)
            with pytest.raises(RuntimeError), store.transaction():
                store.set_meta("inner", 2)
                raise RuntimeError("inner fails")
            store.set_meta("after", 3)
        assert [store.get_meta(k) for k in ("outer", "inner", "after")] == [1, None, 3]
        with pytest.raises(RuntimeError), store.transaction():
            store.set_meta("kept", 4)
            raise RuntimeError("outer fails")
        assert store.get_meta("kept") is None and not store.conn.in_transaction

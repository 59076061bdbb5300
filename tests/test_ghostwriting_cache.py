"""The per-poem ghostwriting measures kept in the run store (poemetric.store.measure_cache,
poemetric.ghostwriting.cached_measures): `analyze`, `report` and `figures` measure each poem
once per run, measure again what changed (a new generation, a dataset poem, an option, the
code), and write the same files as when everything is measured afresh. Real runs and stages;
a wrapper only counts the calls of the measuring functions."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_runner_support import FAST, scripted_spec, use_scripted

import poemetric.ghostwriting.cached_measures as cached_measures
import poemetric.store.measure_cache as measure_cache
from poemetric.analysis import analyze_run, render_figures
from poemetric.generation.stage import run_generation
from poemetric.ghostwriting.cached_measures import MEASURE_SOURCES, code_digest, code_digest_of
from poemetric.ghostwriting.metrics import GhostwritingOptions
from poemetric.ghostwriting.tables import ghostwriting_tables
from poemetric.ghostwriting.uniqueness import UniquenessIndex
from poemetric.pipeline import prepare_run
from poemetric.providers.base import Completion, GenerationRequest
from poemetric.report import build_report
from poemetric.store import RunStore
from poemetric.store.measure_cache import MeasureCache


def reverse_lines(request: GenerationRequest, number: int) -> Completion:
    return Completion(text="\n".join(reversed(request.context["original"].splitlines())))


def every_other_line(request: GenerationRequest, number: int) -> Completion:
    return Completion(text="\n".join(request.context["original"].splitlines()[::2]))


def generate(
    run: Path, name: str, behaviour: Callable[[GenerationRequest, int], Completion]
) -> None:
    use_scripted(behaviour)
    with RunStore(run, create=False) as store:
        run_generation(store, [scripted_spec(name=name, model=name)], options=FAST)


def made_run(folder: Path, poems: int | None = None) -> Path:
    """The demo poems (the first `poems`, as `--limit`), their human rows and a model that
    writes each original backwards."""
    run = folder / "run"
    with RunStore(run) as store:
        prepare_run(store, "demo", limit=poems)
    generate(run, "reverser", reverse_lines)
    return run


@pytest.fixture(scope="module")
def source_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_run(tmp_path_factory.mktemp("source"))


@pytest.fixture
def run(source_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(source_run, tmp_path / "run"))


def forget(run: Path) -> Path:
    """`run` without its kept measures: analysed now, every poem is measured (in place: the
    run's folder is named in notes and captions)."""
    with closing(sqlite3.connect(run / "poemetric.sqlite")) as conn:
        conn.execute("DROP TABLE IF EXISTS measure_cache")
        conn.execute("DROP TABLE IF EXISTS measure_cache_versions")
    return run


class Counts:
    """How many texts were measured and scored for uniqueness (the real functions run)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        self.scored: list[int] = []
        measure, nearest = cached_measures.measure_text, UniquenessIndex.nearest

        def measuring(text: str, options: GhostwritingOptions) -> Any:
            self.texts.append(text)
            return measure(text, options)

        def scoring(index: UniquenessIndex, texts: Any, exclude: Any = None) -> Any:
            self.scored.append(len(texts))
            return nearest(index, texts, exclude)

        monkeypatch.setattr(cached_measures, "measure_text", measuring)
        monkeypatch.setattr(UniquenessIndex, "nearest", scoring)

    def reset(self) -> tuple[int, int]:
        counts = len(self.texts), sum(self.scored)
        self.texts.clear()
        self.scored.clear()
        return counts


def analysed(run: Path, out: Path) -> dict[str, bytes]:
    """`analyze`'s files for `run`, by name."""
    with RunStore(run, create=False) as store, store.snapshot():
        analyze_run(store).write(out)
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


def poem_texts(run: Path, distinct: str = "DISTINCT") -> int:
    """The run's distinct poem texts (with `distinct=""`: its poems)."""
    with closing(sqlite3.connect(run / "poemetric.sqlite")) as conn:
        query = f"SELECT COUNT({distinct} poem) FROM generations"
        return int(conn.execute(query).fetchone()[0])


def poems(run: Path) -> int:
    return poem_texts(run, "")


def test_the_second_analysis_measures_nothing_and_writes_the_same_files(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = Counts(monkeypatch)
    first = analysed(run, tmp_path / "first")
    assert counts.reset() == (poem_texts(run), poems(run))
    second = analysed(run, tmp_path / "second")
    assert counts.reset() == (0, 0)
    assert "ghostwriting_poems.csv" in second and "ghostwriting.csv" in second
    assert first == second  # byte for byte, NOTES.txt included

    # A kept value that is not what the code wrote is measured again, to the same value.
    with closing(sqlite3.connect(run / "poemetric.sqlite")) as conn, conn:
        conn.execute(
            "UPDATE measure_cache SET value = '[1, 2]' WHERE item = "
            "(SELECT MIN(item) FROM measure_cache)"
        )
    assert analysed(run, tmp_path / "third") == first
    assert sum(counts.reset()) == 1


def figure_files(run: Path, out: Path) -> dict[str, bytes]:
    with RunStore(run, create=False) as store, store.snapshot():
        paths = render_figures(store, out, formats=("svg",)).paths
    assert any(path.name == "ghostwriting.svg" for path in paths)
    return {path.name: path.read_bytes() for path in paths}


def report_page(run: Path, out: Path) -> str:
    """The report's page without its footer (the time it was made and took)."""
    with RunStore(run, create=False) as store, store.snapshot():
        page = build_report(store, out).read_text(encoding="utf-8")
    return page.split("<footer>")[0]


def test_figures_and_report_use_the_measures_of_the_analysis(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected_figures = figure_files(run, tmp_path / "f0")
    expected_page = report_page(forget(run), tmp_path / "fresh.html")
    analysed(forget(run), tmp_path / "analysis")
    counts = Counts(monkeypatch)
    # The figure's reference corpus (the run's originals) is the tables' (the dataset
    # snapshot): every poem's measures are read.
    assert figure_files(run, tmp_path / "f1") == expected_figures
    assert counts.reset() == (0, 0)
    assert report_page(run, tmp_path / "index.html") == expected_page
    assert counts.reset() == (0, 0)


def test_the_figure_of_a_limited_run_reads_the_tables_uniqueness(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--limit`: the run's originals are fewer than the dataset's poems; the figure scores
    uniqueness against the dataset's poems as the table does (it used the originals, its own
    corpus, and other values), so what `analyze` scored the figure reads."""
    run = made_run(tmp_path, poems=3)
    expected = figure_files(run, tmp_path / "f0")
    analysed(forget(run), tmp_path / "analysis")
    counts = Counts(monkeypatch)
    assert figure_files(run, tmp_path / "f1") == expected
    assert counts.reset() == (0, 0)


def test_an_added_generation_is_measured_and_the_rest_read(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysed(run, tmp_path / "before")
    texts, rows = poem_texts(run), poems(run)
    generate(run, "halver", every_other_line)  # a resumed or merged run: new rows
    counts = Counts(monkeypatch)
    after = analysed(run, tmp_path / "after")
    assert counts.reset() == (poem_texts(run) - texts, poems(run) - rows)  # the new poems
    assert after == analysed(forget(run), tmp_path / "fresh")
    assert b"halver" in after["ghostwriting_poems.csv"]


def test_a_changed_dataset_poem_scores_uniqueness_again(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysed(run, tmp_path / "before")
    with closing(sqlite3.connect(run / "poemetric.sqlite")) as conn, conn:
        conn.execute(
            "UPDATE poems SET content = content || ?, title = 'Changed' WHERE poem_id = "
            "(SELECT MIN(poem_id) FROM poems)",
            ("\nand a line the dataset's new version added",),
        )
    counts = Counts(monkeypatch)
    after = analysed(run, tmp_path / "after")
    assert counts.reset() == (0, poems(run))  # the same poems, against another corpus
    assert after == analysed(forget(run), tmp_path / "fresh")


def test_another_option_or_version_of_the_code_measures_again(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysed(run, tmp_path / "before")
    counts = Counts(monkeypatch)
    narrow = GhostwritingOptions(window_lines=1)
    with RunStore(run, create=False) as store:
        kept = ghostwriting_tables(store, options=narrow).tables["ghostwriting_poems"]
        assert counts.reset() == (poem_texts(run), 0)  # uniqueness does not depend on it
        fresh = ghostwriting_tables(store, options=narrow, cache=False).tables
        assert counts.reset() == (poem_texts(run), poems(run))  # every poem, nothing read
    pd.testing.assert_frame_equal(kept, fresh["ghostwriting_poems"], check_exact=True)

    # Another version of the measures' code: every poem measured again.
    monkeypatch.setattr(cached_measures, "MEASURES_VERSION", cached_measures.MEASURES_VERSION + 1)
    code_digest.cache_clear()
    try:
        again = analysed(run, tmp_path / "new-code")
        assert counts.reset() == (poem_texts(run), poems(run))
    finally:
        monkeypatch.undo()
        code_digest.cache_clear()
    assert again == analysed(run, tmp_path / "old-code")


def test_the_code_digest_follows_every_measure_source(tmp_path: Path) -> None:
    root = Path(cached_measures.__file__).resolve().parent.parent
    for name in MEASURE_SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / name, tmp_path / name)
    assert code_digest_of(tmp_path) == code_digest_of(root) == code_digest()
    with (tmp_path / "form" / "phonetics.py").open("a") as edited:
        edited.write("# changed\n")
    assert code_digest_of(tmp_path) != code_digest()


#: Modules the measures import that decide no value (storage, text of notes, ordering).
NOT_MEASURES = ("analysis.data", "stats", "form.table_store", "hints", "judge.",
                "providers.", "runner.", "store.", "suggest", "text.listing", "text.ordering",
                "text.plural")  # fmt: skip


def test_every_module_the_measures_import_is_a_measure_source() -> None:
    script = (
        "import sys, pandas as pd\n"
        "from poemetric.ghostwriting.metrics import poem_measures\n"
        "from poemetric.ghostwriting.uniqueness import ReferenceText\n"
        "poems = pd.DataFrame({'generation_id': ['a', 'b'], 'author': ['human', 'm'],\n"
        "    'poem_id': ['p', 'p'], 'poem_form': ['sonnet'] * 2,\n"
        "    'poem': ['The cat sat on the mat,\\nthe hat is flat', 'Wie geht es dir heute']})\n"
        "poem_measures(poems, [ReferenceText('p', 'The cat sat', 'x'), ReferenceText('q', 'A', 'y')])\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('poemetric.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    modules = {m.removeprefix("poemetric.") for m in done.stdout.split()}
    sources = {name.removesuffix(".py").replace("/", ".") for name in MEASURE_SOURCES}
    packages = {m for m in modules if "." not in m}  # poemetric.form and the like: no code
    unlisted = modules - sources - packages
    assert {m for m in unlisted if not m.startswith(NOT_MEASURES)} == set()


def test_a_failed_write_leaves_the_analysis_as_it_would_be(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the store's write lock past the wait: nothing is kept, and the
    command writes what it would have."""
    expected = analysed(run, tmp_path / "expected")
    forget(run)
    monkeypatch.setattr(measure_cache, "WRITE_TIMEOUT_S", 0.05)
    with closing(sqlite3.connect(run / "poemetric.sqlite", isolation_level=None)) as holder:
        holder.execute("BEGIN IMMEDIATE")
        assert analysed(run, tmp_path / "locked") == expected
        holder.execute("ROLLBACK")
    counts = Counts(monkeypatch)
    with RunStore(run, create=False) as store:
        assert MeasureCache(store).read("anything") == {}
    assert analysed(run, tmp_path / "unlocked") == expected
    assert counts.reset() == (poem_texts(run), poems(run))  # nothing had been kept


def test_only_the_newest_versions_of_a_kind_are_kept(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        cache = MeasureCache(store)
        for number in range(measure_cache.KEEP + 2):
            assert cache.write("kind", f"v{number}", {"item": [number, float("nan")]})
        assert cache.write("other", "w", {"item": "x"})
        versions = [f"v{n}" for n in range(measure_cache.KEEP + 2)]
        kept = {version for version in versions if cache.read(version)}
        assert kept == set(versions[2:])
        assert cache.read("w") == {"item": "x"}
        value = cache.read(versions[-1])["item"]
        assert value[0] == measure_cache.KEEP + 1 and value[1] != value[1]  # NaN comes back


def test_a_user_lexicon_in_use_keeps_its_own_measures() -> None:
    """Measures taken under a user lexicon (Python API) were filed under CMUdict's version and
    served to later commands; the syllable caches kept readings from before the switch."""
    from poemetric.form import user_lexicon
    from poemetric.ghostwriting.syllables import first_pronunciation

    options = GhostwritingOptions()
    lexicon = user_lexicon.parse_lexicon("KILDARE  K IH0 L D EH1 R\n", "names.txt")
    plain = cached_measures.text_version(options)
    guessed = first_pronunciation("kildare")
    with user_lexicon.using(lexicon):
        assert cached_measures.text_version(options) != plain
        assert first_pronunciation("kildare") == ("K", "IH0", "L", "D", "EH1", "R")
    assert cached_measures.text_version(options) == plain
    assert first_pronunciation("kildare") == guessed


def test_a_text_sharing_no_word_with_the_corpus_is_kept_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uniqueness 0 with no nearest text (a Chinese poem against English references) is read
    back from the store like any other result, not measured again by every command."""
    from poemetric.ghostwriting.uniqueness import Nearest, ReferenceText

    scored: list[int] = []
    real = UniquenessIndex.nearest

    def counted(self: UniquenessIndex, *args: Any, **kwargs: Any) -> list[Nearest]:
        scored.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(UniquenessIndex, "nearest", counted)
    references = [ReferenceText("wine", "the fine wine", "Wine")]
    with RunStore(tmp_path / "run") as store:
        cache = MeasureCache(store)
        for _ in range(2):
            found = cached_measures.nearest_references(["床前明月光"], [set()], references, cache)
            assert found == [Nearest(0.0, None, None)]
    assert len(scored) == 1


def test_versions_written_in_one_millisecond_are_forgotten_in_the_order_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Versions were ordered by their write time, then by name: two written within one
    millisecond kept the later name, not the later write (a flaky failure in CI)."""
    monkeypatch.setattr(measure_cache, "utc_now", lambda: "2026-11-27T12:00:00.000+00:00")
    with RunStore(tmp_path / "run") as store:
        cache = MeasureCache(store)
        versions = [f"v{n}" for n in (9, 8, *range(measure_cache.KEEP))]  # names out of order
        for number, version in enumerate(versions):
            assert cache.write("kind", version, {"item": number})
        assert cache.write("kind", "v8", {"item": "again"})  # rewritten: the newest now
        kept = {version for version in versions if cache.read(version)}
        assert kept == {"v8", *versions[-(measure_cache.KEEP - 1) :]}

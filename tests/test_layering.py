"""The one-way flow of a run (docs/running.md): dataset -> prompts -> generations -> form checks /
judgments -> analysis -> figures / report. Each stage reads what the stage before it stored;
machinery every stage uses (the store, the batch runner, the roster, the providers, text
helpers) lives in shared packages. So a shared package imports no stage and no top-level
module, and a stage imports no other stage and no top-level module, not even inside a function
(a lazy import is a dependency all the same). The few edges that stay are in ALLOWED, each with
its reason. Every package and module under `poemetric/` must be classified below: a new one
fails `test_every_package_is_classified` until it is."""

from __future__ import annotations

import ast
from pathlib import Path

import poemetric

ROOT = Path(poemetric.__file__).parent

#: Stages: each reads the stored results of the one before it and stores its own.
STAGES = frozenset(
    {
        "pipeline",  # dataset -> prompts: snapshots a dataset into a store, renders its prompts
        "generation",  # prompts -> generations (through the runner)
        "form",  # generations -> form checks (the rule-based checker and `form run`)
        "judge",  # generations -> LLM judgments
        "style",  # the style-matching judge protocol (ghostwriting style-match)
        "probes",  # minimal-pair probes: models score stored pairs, results are stored
        "ghostwriting",  # the ghostwriting measures over generations, cached in the store
        "annotation",  # human line-level annotation tasks (sheets, import)
        "survey",  # the expert survey: build, serve, import human ratings
        "analysis",  # stored results -> scores, tables, figures
        "report",  # the HTML report of a run
    }
)
#: Shared machinery: used by the stages, builds on no stage.
SHARED = frozenset(
    {
        "",  # `poemetric/__init__.py` (`__version__`)
        "store",
        "runner",
        "roster",
        "providers",
        "data",  # datasets: schema, loading, validation
        "text",
        "extraction",  # pulls the poem out of an answer: generation and the form check use it
        "tables",  # CSV, LaTeX and Markdown table writers, readable headers
        "stats",  # summaries with confidence intervals (t, bootstrap, Wilson)
        "reliability",  # agreement statistics for `agree`, analysis and the survey's admin page
        "testing",  # local servers speaking the providers' protocols, for tests
        "markov",  # the offline n-gram baseline model, behind the provider interface
        "questionnaire",  # the judge's questionnaire: the schema of every stored judgment
        "prompts",  # the prompt templates the generation, judge, survey and roster read
        "screening",  # "is this answer a poem?", one rule for every stage
        "paths",
        "hints",
        "suggest",
        "redaction",
        "env_settings",
        "progress_lines",
        "agreement_defaults",
        "form_defaults",  # the form check's pass threshold, named by analysis captions
        "form_names",  # spellings of the form names, read by the checker and the dataset loader
    }
)
#: The top level: wires stages together; nothing below imports it.
TOP = frozenset({"cli", "__main__", "stage_coverage", "merging"})

#: (importing package, imported module or package) -> why the edge stays. An imported name
#: covers its submodules.
ALLOWED: dict[tuple[str, str], str] = {
    # The pronunciation dictionary, the rhyme rules and the user lexicon are the form checker's;
    # these measure or generate sound with the same rules, so that every number uses one CMUdict
    # reading and one `--lexicon`.
    ("markov", "poemetric.form.phonetics"): "rhyme and syllables of the offline baseline",
    ("ghostwriting", "poemetric.form"): "syllables and rhymes of the ghostwriting measures",
    ("probes", "poemetric.form.rhyme"): "the rhyme of a probe's last line",
    ("probes", "poemetric.form.phonetics"): (
        "a swapped-in word's first sound, so that it takes the article (a/an) the original took"
    ),
    ("extraction", "poemetric.form.rhyme"): (
        "a glued last line that rhymes with the stanza is verse, not a closing remark"
    ),
    ("data", "poemetric.form.meter_reading"): (
        "dataset validation warns of a `meter_pattern` the checker reads in part or not at all: "
        "the checker's own reading (regular expressions only)"
    ),
    # judge.pending says which judgments of a stored run are still to be asked (the
    # questionnaire itself, the schema of every stored judgment, is the shared `questionnaire`).
    ("analysis", "poemetric.judge.pending"): "tables name the judgments still pending",
    ("report", "poemetric.judge.pending"): "the report shows the pending judgments",
    # The report is drawn from an analysis computed in the same process (`analyze_run`), not
    # from files the analysis stored, and shows the probes' and ghostwriting's tables.
    ("report", "poemetric.analysis"): "the report renders `analyze_run`'s result",
    ("report", "poemetric.probes"): "the probes section reads the stored probe scores",
    ("report", "poemetric.ghostwriting"): "the ghostwriting section's near-copy threshold",
    # The ghostwriting measures are drawn with the analysis's figure helpers,
    # and `analyze` draws their figure and tables with the rest.
    ("ghostwriting", "poemetric.analysis"): "the analysis's figure helpers",
    ("analysis", "poemetric.ghostwriting"): "`analyze` writes the ghostwriting figure and tables",
    # The line-level task is served by the survey's web app and stored in its tables.
    ("survey", "poemetric.annotation"): "the survey serves and prints the line-level task",
    ("annotation", "poemetric.survey"): "imported line grades complete the survey's pages",
}


def _unit(module: str) -> str | None:
    """The package (or top-level module) of `poemetric` that `module` is in; None outside."""
    parts = module.split(".")
    if parts[0] != "poemetric":
        return None
    return parts[1] if len(parts) > 1 else ""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, at any depth (lazy imports included);
    relative imports resolved, `from poemetric import x` read as `poemetric.x`."""
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, *([base] if base else [])])
            # `from poemetric import survey`, `from . import db`: a name may be a module
            found += [(node.lineno, _submodule(base, alias.name)) for alias in node.names]
    return found


def _submodule(package: str, name: str) -> str:
    """`package.name` when that is a module or package of poemetric, else `package`."""
    candidate = ROOT.parent.joinpath(*package.split("."), name)
    is_module = candidate.is_dir() or candidate.with_suffix(".py").is_file()
    return f"{package}.{name}" if package.startswith("poemetric") and is_module else package


ALL_PACKAGES = STAGES | SHARED | TOP


def _kind(unit: str) -> str:
    return "stage" if unit in STAGES else "shared" if unit in SHARED else "top"


def _allowed(importer: str, module: str) -> bool:
    return any(
        importer == source and (module == target or module.startswith(target + "."))
        for source, target in ALLOWED
    )


def _wrong(importer: str, module: str) -> bool:
    target = _unit(module)
    if target is None or target == importer or target == "":
        return False  # outside poemetric, the same package, or `poemetric.__version__`
    kinds = (_kind(importer), _kind(target))
    bad = kinds in (("shared", "stage"), ("shared", "top"), ("stage", "stage"), ("stage", "top"))
    return bad and not _allowed(importer, module)


def violations(files: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(ROOT.parent)}:{line}: {_kind(importer)} {importer!r} imports {module}"
        for path in files
        if (importer := _unit(_module_name(path))) is not None
        for line, module in imported(path)
        if _wrong(importer, module)
    ]


def test_every_package_is_classified() -> None:
    found = {_unit(_module_name(path)) for path in ROOT.rglob("*.py")}
    assert found - ALL_PACKAGES == set()
    assert ALL_PACKAGES - found == set()  # a name left over from a package that is gone
    assert not STAGES & SHARED and not STAGES & TOP and not SHARED & TOP


def test_no_stage_imports_another_and_shared_packages_import_no_stage() -> None:
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 100  # the package was found
    assert violations(files) == []


def test_every_allowed_edge_is_still_used() -> None:
    """An allowance whose import is gone is removed, so that the list stays the short list of
    edges that exist."""
    edges = {
        (importer, module)
        for path in ROOT.rglob("*.py")
        if (importer := _unit(_module_name(path))) is not None
        for _, module in imported(path)
    }
    unused = [
        pair
        for pair in ALLOWED
        if not any(i == pair[0] and (m == pair[1] or m.startswith(pair[1] + ".")) for i, m in edges)
    ]
    assert unused == []


def test_the_check_sees_lazy_relative_and_package_imports(tmp_path: Path) -> None:
    store = tmp_path / "poemetric" / "store"
    store.mkdir(parents=True)
    module = store / "m.py"
    module.write_text(
        "def f():\n"
        "    from poemetric.survey import tokens\n"
        "    from poemetric import cli\n"
        "    from ..form import user_lexicon\n"
        "    from . import db\n",
        encoding="utf-8",
    )
    (tmp_path / "poemetric" / "cli.py").touch()
    (tmp_path / "poemetric" / "form").mkdir()
    (tmp_path / "poemetric" / "form" / "user_lexicon.py").touch()
    global ROOT
    saved, ROOT = ROOT, tmp_path / "poemetric"
    try:
        assert [m for _, m in imported(module)] == [
            "poemetric.survey",  # `tokens` is no module of this tree: the package is named
            "poemetric.cli",
            "poemetric.form.user_lexicon",
            "poemetric.store",
        ]
        assert violations([module]) == [
            "poemetric/store/m.py:2: shared 'store' imports poemetric.survey",
            "poemetric/store/m.py:3: shared 'store' imports poemetric.cli",
            "poemetric/store/m.py:4: shared 'store' imports poemetric.form.user_lexicon",
        ]
    finally:
        ROOT = saved


def test_a_stage_may_not_import_another_but_may_import_shared_packages() -> None:
    assert _wrong("survey", "poemetric.analysis.labels")
    assert _wrong("generation", "poemetric.pipeline")
    assert _wrong("judge", "poemetric.cli.app")
    assert not _wrong("survey", "poemetric.store.db")
    assert not _wrong("cli", "poemetric.survey.db")  # the top level wires stages together
    assert not _wrong("analysis", "poemetric.judge.pending")  # allowed above
    assert _wrong("analysis", "poemetric.judge.stage")  # allowed per module, not per package

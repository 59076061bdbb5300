"""The benchmark scripts count from the data (issue 7: `make bench` reported 'lost' jobs that
were never lost because it assumed 18 demo prompts)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(autouse=True)
def _bench_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("POEMETRIC_BENCH_KEY", "bench-key")


def test_runner_bench_counts_the_demo_prompts() -> None:
    import bench_runner

    outcome = bench_runner.scenario(rate=200.0, latency=0.0, samples=1, fault_share=0.0, seed=0)
    assert outcome.jobs == outcome.requests == 16  # the demo has 16 prompts
    assert outcome.lost == 0 and outcome.duplicated_rows == 0


@pytest.mark.slow
def test_judge_rate_bench_checks_stored_scores_against_the_server() -> None:
    import bench_judge_rate

    with tempfile.TemporaryDirectory() as tmp:
        store, _ = bench_judge_rate.prepared(Path(tmp), use_shared=False, demo_samples=1)
        outcome = bench_judge_rate.judge_once(store, rate=100.0, latency=0.01, seed=0)
        store.close()
    assert outcome.poems == 32 and outcome.missing == 0
    assert outcome.error_rows == 0 and outcome.wrong_scores == 0
    assert outcome.requests >= outcome.poems


@pytest.mark.slow
def test_throughput_bench_counts_calls_at_the_server_across_a_sigkill(tmp_path: Path) -> None:
    """The CLI killed with SIGKILL halfway and run again: every job stored once, and the
    server's own log says how many answers were bought twice (at most those in flight)."""
    import bench_throughput

    measured = bench_throughput.scenario(
        tmp_path,
        "kill",
        jobs=64,
        limits={"max_concurrency": 4},
        server={"latency": [0.2, 0.3]},
        kill_at=0.25,
    )
    assert measured.jobs == measured.ok_jobs == measured.rows == 64
    assert measured.exit_codes == [-9, 0]
    assert len(measured.successes) == 64 and measured.repeated <= 4


def test_missing_shared_data_is_a_skip_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh clone without ../shared/data runs `make bench` to exit 0, naming what it skipped."""
    import run_all
    import shared_data

    with pytest.raises(SystemExit) as exit_info:
        shared_data.require(tmp_path / "absent.tsv")
    assert exit_info.value.code == shared_data.SKIPPED
    assert "absent.tsv not found" in capsys.readouterr().err

    scripts = {
        "bench_needs_data.py": f"raise SystemExit({shared_data.SKIPPED})",
        "bench_measures.py": "print('42 poems/s')",
    }
    for name, body in scripts.items():
        (tmp_path / name).write_text(body)
    monkeypatch.setattr(run_all, "HERE", tmp_path)
    assert run_all.main([]) == 0
    out = capsys.readouterr().out
    assert "1 benchmarks ran, 0 failed: none; 1 skipped: bench_needs_data.py" in out

    (tmp_path / "bench_broken.py").write_text("raise SystemExit(1)")
    assert run_all.main([]) == 1
    assert "1 failed: bench_broken.py" in capsys.readouterr().out


def test_run_all_refuses_a_name_that_is_no_benchmark_and_has_help(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make bench ARGS=rhme` (or `ARGS=--help`) ran nothing and exited 0 with "0 benchmarks
    ran, 0 failed: none"."""
    import run_all

    (tmp_path / "bench_rhyme.py").write_text("print('ran rhyme')")
    monkeypatch.setattr(run_all, "HERE", tmp_path)
    assert run_all.main(["rhme", "rhyme"]) == 2
    captured = capsys.readouterr()
    assert "ran rhyme" not in captured.out
    assert captured.err.strip() == "error: no benchmark rhme (nothing was run); benchmarks: rhyme"
    assert run_all.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Run every benchmark script") and "Benchmarks: rhyme" in out
    assert run_all.main(["bench_rhyme.py"]) == 0
    assert "1 benchmarks ran, 0 failed: none" in capsys.readouterr().out


def test_rate_benchmarks_fail_on_wrong_results_not_on_a_busy_machine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import verdict

    assert verdict.report(correct=True, rate_met=True) == 0
    assert verdict.report(correct=True, rate_met=False) == 0
    assert "rate target missed: a wall-clock share, measured at load average" in (
        capsys.readouterr().out
    )
    assert verdict.report(correct=False, rate_met=True) == 1
    assert "RESULTS WRONG" in capsys.readouterr().out


def test_validate_bench_times_distinct_valid_copies(tmp_path: Path) -> None:
    """bench_validate.py's inputs are distinct files with the same (valid) records."""
    import bench_validate

    from poemetric.data import validate_file
    from poemetric.paths import resource_path

    demo = resource_path("datasets", "demo", "poems.csv")
    copies = bench_validate.shuffled_copies(demo, tmp_path, 3)
    assert len({path.read_bytes() for path in copies}) == 3
    reports = [validate_file(path) for path in copies]
    assert all(r.records == validate_file(demo).records == 16 and not r.issues for r in reports)


def test_compiled_bench_type_checks_the_form_modules_as_mypyc_will(tmp_path: Path) -> None:
    """bench_form_compiled.py stopped at mypyc's type check: run alone, mypy called the imports
    of untyped packages (pyarrow, threadpoolctl) errors. This runs that check (mypy with mypyc's
    arguments) on a copy of the package, as the benchmark does."""
    pytest.importorskip("mypy")
    import bench_form_compiled

    copy = tmp_path / "copy"
    shutil.copytree(
        BENCH.parent / "poemetric",
        copy / "poemetric",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    modules = bench_form_compiled._compilable(copy / "poemetric")
    arguments = bench_form_compiled._mypyc_command(copy, modules)[1:]
    cache = ["--cache-dir", str(tmp_path / "mypy-cache")]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *cache, *arguments],
        cwd=copy,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_gpu_benchmarks_say_so_on_a_machine_without_cuda(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Named on a machine without CUDA, the GPU benchmarks printed a traceback ('Torch not
    compiled with CUDA enabled'), bench_probe_gpu.py only after minutes of CPU scoring; they now
    say so in one line and exit 2 before any work."""
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    import bench_local_stop
    import bench_probe_gpu
    import bench_vllm

    assert bench_probe_gpu.main(["--random-init", "smollm2-135m"]) == 2
    assert "--device cuda needs a CUDA GPU" in capsys.readouterr().out
    argv = ["--provider", "transformers", "--random-init", "tiny", "--prompts", "1"]
    assert bench_vllm.main(argv) == 2
    assert "--device cuda needs a CUDA GPU" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["bench_local_stop.py", "--device", "cuda"])
    assert bench_local_stop.main() == 2
    assert "--device cuda needs a CUDA GPU" in capsys.readouterr().out
    import bench_judge_local

    monkeypatch.setattr(sys, "argv", ["bench_judge_local.py", "--device", "cuda"])
    assert bench_judge_local.main() == 2
    assert "--device cuda needs a CUDA GPU" in capsys.readouterr().out


def test_mypy_checks_the_benchmarks() -> None:
    """`make typecheck` covered only poemetric/, so a benchmark calling a changed API broke
    unnoticed until it was run; mypy now checks bench/ as ruff does."""
    config = tomllib.loads((BENCH.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(config["tool"]["mypy"]["files"]) == {"poemetric", "bench"}


def test_survey_demo_bench_fills_templates_that_name_poems_by_their_codes(tmp_path: Path) -> None:
    """bench_survey_demo.py (docs/survey.md, "On the demo run") stopped with a KeyError at its
    first template once the sheets named each poem by its code under the survey secret: it
    looked the templates' poems up by generation id."""
    import csv

    import bench_survey_demo
    from survey_support import survey_run
    from typer.testing import CliRunner

    from poemetric.cli import app
    from poemetric.store import RunStore

    runner = CliRunner()
    run = survey_run(tmp_path / "run", poems=4)
    build = ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "4"]
    assert runner.invoke(app, [*build, "--seed", "1"]).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    poems = bench_survey_demo.sheet_poems(run)
    for index, rater in enumerate(["R1", "R2"]):
        template = run / "survey-experts" / f"{rater}.csv"
        bench_survey_demo.fill(template, poems, noise=0.5, seed=index)
        rows = list(csv.DictReader(template.open(encoding="utf-8")))
        assert rows and all(row["score"] in {"1", "2", "3", "4", "5"} for row in rows)
        imported = runner.invoke(app, ["survey", "import", str(template), "--run", str(run)])
        assert imported.exit_code == 0, imported.output
    with RunStore(run, create=False) as store:
        stored = store.query("SELECT COUNT(*) FROM survey_answers WHERE score IS NOT NULL")[0][0]
    assert stored == 2 * 4 * 10  # two raters, four poems each, ten items

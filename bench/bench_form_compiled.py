"""Would compiling the form checker as it stands reach the speed targets? Measured with mypyc.

mypyc (shipped with mypy, a dev dependency) compiles type-annotated Python modules to C
extensions with the same behaviour. This script copies the `poemetric` package twice into a
temporary folder, compiles every module of `poemetric/form/` with mypyc in one copy (all but
`__init__` and the modules that define pydantic models, which mypyc does not compile), and then
times the two copies side by side on the same distinct poems as bench_form_speed.py:

- in process: the 163 gold poems, then 1,630 distinct poems (163 gold + Markov), each in a fresh
  process pinned to one core, CPU time of the checks only (tables opened before the clock starts);
- whole process: `python -m poemetric form check -j 1` on the 1,630 poems, CPU time of the
  process.

The two copies alternate run by run; each figure is the best of `--runs` with the spread. Every
output is compared byte for byte between the copies. Nothing is cached between processes but the
per-machine tables (CMUdict, word entries, metre templates) that both copies open. The project
does not ship the compiled build; this measures whether it should.

    .venv/bin/python bench/bench_form_compiled.py [--runs 5]

Needs a C compiler and the Python headers; says so and exits 0 when they are missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_form_speed import CHILD_ENV, PIN, _open_tables, _timed, _write  # noqa: E402


def _child(path: str, out: str) -> None:
    """Runs in a fresh process whose `poemetric` is one of the copies; prints one JSON object."""
    from poemetric.form import lexicon, meter_templates, meter_words
    from poemetric.form.checker import batch_checks, check_poem

    _open_tables(lexicon, meter_words, meter_templates)
    poems = [json.loads(line) for line in Path(path).read_text().splitlines()]
    start = time.process_time()
    with batch_checks():
        checks = [check_poem(p["text"], p["form"], p["meter"], p["rhyme"]) for p in poems]
    cpu = time.process_time() - start
    Path(out).write_text("".join(c.model_dump_json() + "\n" for c in checks))
    print(json.dumps({"poems": len(poems), "cpu": cpu, "module": meter_words.__file__}))


def _compilable(package: Path) -> list[Path]:
    return [
        path
        for path in sorted((package / "form").glob("*.py"))
        if path.name != "__init__.py" and "pydantic" not in path.read_text(encoding="utf-8")
    ]


def _mypyc_command(copy: Path, modules: list[Path]) -> list[str]:
    """mypyc on `modules` of `copy`, type-checked with the project's mypy settings (without its
    overrides, importing untyped packages such as pyarrow or threadpoolctl is an error)."""
    mypyc = Path(sys.executable).with_name("mypyc")
    config = ["--config-file", str(ROOT / "pyproject.toml")]
    return [str(mypyc), *config, *[str(m.relative_to(copy)) for m in modules]]


def _compile(copy: Path) -> tuple[int, float]:
    """Compiles the form modules in `copy` in place; returns (modules, seconds)."""
    modules = _compilable(copy / "poemetric")
    started = time.perf_counter()
    done = subprocess.run(
        _mypyc_command(copy, modules),
        cwd=copy,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"mypyc failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return len(modules), time.perf_counter() - started


def _in_process(copy: Path, poems: Path, out: Path) -> dict[str, float | str]:
    env = {**CHILD_ENV, "PYTHONPATH": str(copy)}
    result = subprocess.run(
        [*PIN, sys.executable, __file__, "--child", str(poems), str(out)],
        env=env,
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    parsed: dict[str, float | str] = json.loads(result.strip().splitlines()[-1])
    return parsed


def _best(rates: list[float]) -> str:
    return (
        f"best {max(rates):,.0f} (median {statistics.median(rates):,.0f}, "
        f"spread {min(rates):,.0f}-{max(rates):,.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--poems", type=int, default=1630)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not (shutil.which("cc") or shutil.which("gcc")) or not headers.is_file():
        print(f"skipped: mypyc needs a C compiler and {headers}; not found")
        return

    from distinct_poems import distinct_poems
    from mutations import GOLD_CSV, load_gold

    from poemetric.form import lexicon, meter_templates, meter_words

    _open_tables(lexicon, meter_words, meter_templates)  # built once, outside the timings
    poems = distinct_poems(load_gold(GOLD_CSV), args.poems)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        copies = {"python": tmp / "python", "mypyc": tmp / "mypyc"}
        for copy in copies.values():
            shutil.copytree(
                ROOT / "poemetric",
                copy / "poemetric",
                ignore=shutil.ignore_patterns("__pycache__", "*.so"),
            )
        modules, seconds = _compile(copies["mypyc"])
        print(f"mypyc compiled {modules} modules of poemetric/form in {seconds:.0f} s wall")
        inputs = {"163 gold": tmp / "gold.jsonl", f"{len(poems):,} distinct": tmp / "all.jsonl"}
        _write(poems[:163], inputs["163 gold"])
        _write(poems, inputs[f"{len(poems):,} distinct"])
        print(
            f"one core: {'taskset -c 0' if PIN else 'not pinned (no taskset)'}; "
            f"best of {args.runs}, the two builds alternating"
        )
        for label, path in inputs.items():
            rates: dict[str, list[float]] = {name: [] for name in copies}
            for run in range(args.runs):
                for name, copy in copies.items():
                    result = _in_process(copy, path, tmp / f"{name}.out")
                    if run == 0 and name == "mypyc" and not str(result["module"]).endswith(".so"):
                        sys.exit(f"the compiled copy imported {result['module']}, not a .so")
                    rates[name].append(float(result["poems"]) / float(result["cpu"]))
            same = (tmp / "python.out").read_bytes() == (tmp / "mypyc.out").read_bytes()
            ratio = max(rates["mypyc"]) / max(rates["python"])
            print(
                f"in process, {label} poems (poems/s CPU): Python {_best(rates['python'])}; "
                f"mypyc {_best(rates['mypyc'])}; {ratio:.2f}x; "
                f"FormCheck output {'identical' if same else 'DIFFERS'}"
            )
        whole = inputs[f"{len(poems):,} distinct"]
        cpus: dict[str, list[float]] = {name: [] for name in copies}
        for _ in range(args.runs):
            for name, copy in copies.items():
                out = tmp / f"{name}-cli.jsonl"
                # -P: the copy on PYTHONPATH, not the checkout in the working folder
                command = [sys.executable, "-P", "-m", "poemetric", "form", "check", str(whole)]
                env = {**CHILD_ENV, "PYTHONPATH": str(copy)}
                _, cpu, code = _timed([*command, "-o", str(out), "-j", "1"], env)
                if code:
                    sys.exit(f"`form check` with the {name} copy exited {code}")
                cpus[name].append(cpu)
        same = (tmp / "python-cli.jsonl").read_bytes() == (tmp / "mypyc-cli.jsonl").read_bytes()
        n = len(poems)
        print(
            f"whole process, `python -m poemetric form check -j 1` on {n:,} poems (poems/s CPU): "
            f"Python {_best([n / c for c in cpus['python']])}; "
            f"mypyc {_best([n / c for c in cpus['mypyc']])}; "
            f"{min(cpus['python']) / min(cpus['mypyc']):.2f}x; "
            f"output {'identical' if same else 'DIFFERS'}"
        )


if __name__ == "__main__":
    main()

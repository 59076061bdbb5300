"""Does a change to answer extraction leave the texts it already handled unchanged?

Collects every multi-line text the project holds that extraction may meet: the strings of the
tests about extraction and form checks (literals, module constants, parametrize values), the
bundled datasets' poems, the bench corpora (development and hold-out) and, when present, the
POEMetric release poems in ../shared/data (read at run time, never stored). Each text is
extracted by this checkout and by the checkout of `--base` (a temporary `git worktree`), each
in its own process, and the results (poem, title, notes, reasoning) are compared text by text.
Prints the counts and the texts whose result changed; exits 1 when any did.

    .venv/bin/python bench/extraction_unchanged.py [--base main] [--show 10]

Texts are matched by their content, so tests added or moved on either side do not shift the
comparison; texts only one side holds are extracted by both.
"""

from __future__ import annotations

import argparse
import ast
import csv
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from shared_data import SHARED_DATA  # noqa: E402


def _module_texts(path: Path) -> list[str]:
    """The multi-line strings of a test module: literals, and the module's evaluated constants
    and parametrize values (texts built by concatenation or `join`)."""
    texts = [
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value
    ]
    spec = importlib.util.spec_from_file_location(f"_texts_{path.stem}", path)
    if spec is None or spec.loader is None:
        return texts
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a module that needs what this process lacks: literals only
        print(f"note: {path.name}: constants not read ({exc})", file=sys.stderr)
        return texts
    for value in vars(module).values():
        values = value if isinstance(value, (list, tuple)) else [value]
        texts += [v for v in values if isinstance(v, str) and "\n" in v]
        for mark in getattr(value, "pytestmark", []):
            if mark.name == "parametrize" and len(mark.args) > 1:
                for case in mark.args[1]:
                    cases = case if isinstance(case, (list, tuple)) else [case]
                    texts += [v for v in cases if isinstance(v, str)]
    return texts


def collect_texts() -> list[str]:
    """Every text, once, in a stable order."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    texts: list[str] = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if "extract" in source or "form" in path.name:
            texts += _module_texts(path)
    release = SHARED_DATA / "poemetric_human_poems_annotated.csv"
    if not release.is_file():
        print(f"note: {release} not found: the release poems are left out", file=sys.stderr)
    for path in [*sorted(ROOT.glob("datasets/*/poems.csv")), release]:
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as handle:
                texts += [row["content"] for row in csv.DictReader(handle) if row.get("content")]
    from form_corpus import HOLDOUT_DIR, load_corpus

    texts += [case.text for case in (*load_corpus(), *load_corpus(HOLDOUT_DIR))]
    return list(dict.fromkeys(texts))


_EXTRACT = """
import json, sys
from poemetric.extraction import extract_poem
out = []
for text in json.load(sys.stdin):
    try:
        r = extract_poem(text)
    except Exception as exc:  # a crash on one text (RecursionError) is a changed result
        out.append([f"{type(exc).__name__}: {exc}", None, [], None])
        continue
    out.append([r.poem, r.title, list(r.notes), r.reasoning])
json.dump(out, sys.stdout)
"""


def extract_with(checkout: Path, texts: list[str]) -> list[list[object]]:
    """Each text extracted by the `poemetric` of `checkout`, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", _EXTRACT],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        cwd=checkout,
        env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
    )
    results: list[list[object]] = json.loads(done.stdout)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="git revision to compare with")
    parser.add_argument("--show", type=int, default=10, help="changed texts to print")
    args = parser.parse_args()
    texts = collect_texts()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), args.base],
            check=True,
        )
        try:
            before = extract_with(base, texts)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=True
            )
    after = extract_with(ROOT, texts)
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    print(f"{len(texts)} texts extracted by {args.base} and by this checkout")
    print(f"unchanged: {len(texts) - len(changed)}; changed: {len(changed)}")
    for i in changed[: args.show]:
        print(f"--- changed: {texts[i][:120]!r}")
        print(f"    before: {before[i][0]!r:.200}")
        print(f"    after:  {after[i][0]!r:.200}")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())

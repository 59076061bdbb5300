"""Run the POEMetric authors' reference script on a JSONL of poems, as one whole process.

Usage (by bench_form_speed.py, with a Python that has nltk and pandas installed):

    python reference_runner.py REFERENCE.py poems.jsonl out.jsonl

The reference's own entry point reads a fixed Excel file; this runner imports the script from
its path (its module-level code runs: nltk imports and its `nltk.download` calls), builds its
`POEMetric` object (which loads NLTK's CMUdict) and calls `evaluate_row` per poem, the function
its `evaluate_file` calls, writing one JSON line per poem. Excel input/output is left out, so the
reference is measured slightly faster than its own entry point would run. A row whose metre the
script cannot handle (it knows only iambic tri-, tetra- and pentameter) raises inside it; the
runner records the error and goes on.
"""

from __future__ import annotations

import importlib.util
import json
import sys


def main(reference: str, source: str, destination: str) -> None:
    spec = importlib.util.spec_from_file_location("poemetric_reference", reference)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    checker = module.POEMetric()
    with open(source, encoding="utf-8") as rows, open(destination, "w") as out:
        for line in rows:
            poem = json.loads(line)
            row = {
                "id": poem["id"],
                "Form": poem["form"],
                "Meter": poem.get("meter") or None,
                "Rhyme": poem.get("rhyme") or None,
                "poem": poem["text"],
            }
            verdict: dict[str, object]
            try:
                result = checker.evaluate_row(row)
                verdict = {"passed": bool(result["poem_is_correct"])}
            except Exception as exc:  # the reference raises on metres it does not know
                verdict = {"error": f"{type(exc).__name__}: {exc}"}
            out.write(json.dumps({"id": poem["id"], **verdict}) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])

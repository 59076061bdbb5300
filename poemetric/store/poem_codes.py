"""The codes that name a survey's poems on its printed sheets and CSV templates.

A sheet must let a filled template be matched back to its poems without telling the rater who
wrote them. The generation id cannot do that: it is a plain hash of the poem id, the generation
template's hash and the author (`generation_id_for`), all public (the dataset, `prompts/`, the
paper's list of models), so a rater could recompute it for every candidate author and read off
the one that matches. A poem's code is instead an HMAC-SHA256 of the survey and generation ids
under the run's survey secret (`RUN/survey-secret.key`, the secret of the raters' links), cut to
16 hex digits: the same for every rater of a survey (so `poemetric agree` pairs filled
templates as they are), and mapped back to the poem only by whoever holds the secret. The
line-annotation sheets (`ghostwriting sheets`, a line survey's `survey sheets`) name their poems
the same way, under their sheet id.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from poemetric.paths import survey_secret_path
from poemetric.store.db import RunStore

CODE_LENGTH = 16


def poem_code(secret: bytes, survey_id: str, generation_id: str) -> str:
    """The code of one poem of a survey, as its sheets print it."""
    message = "\x00".join(("poem", survey_id, generation_id)).encode("utf-8")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:CODE_LENGTH]


def survey_secret(run_dir: Path) -> bytes | None:
    """The run's survey secret, None while it has none (no sheet was printed with it)."""
    path = survey_secret_path(run_dir)
    return path.read_bytes() if path.is_file() else None


def sheet_codes(store: RunStore) -> dict[str, str]:
    """code -> generation_id of every poem the run's surveys assigned, as their sheets name
    them (none without the survey secret: no sheet could have been printed with it)."""
    secret = survey_secret(store.run_dir)
    if secret is None:
        return {}
    rows = store.query("SELECT DISTINCT survey_id, generation_id FROM survey_assignments")
    return {poem_code(secret, row[0], row[1]): row[1] for row in rows}

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
the same way, under their sheet id. A run merged from runs with other secrets keeps theirs
(`keep_sheet_secret`), so that the sheets printed there import into it too.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from poemetric.paths import survey_secret_path, write_secret_file
from poemetric.store.db import RunStore

#: A code's length: `p` and 15 hex digits. The letter first keeps a spreadsheet from reading a
#: code as a number (all digits: rounded to 15 significant digits; digits around one `e`: a
#: power of ten), which it then saved back changed: about one code in 700 was.
CODE_LENGTH = 16


def poem_code(secret: bytes, survey_id: str, generation_id: str) -> str:
    """The code of one poem of a survey, as its sheets print it."""
    message = "\x00".join(("poem", survey_id, generation_id)).encode("utf-8")
    return "p" + hmac.new(secret, message, hashlib.sha256).hexdigest()[: CODE_LENGTH - 1]


def survey_secret(run_dir: Path) -> bytes | None:
    """The run's survey secret, None while it has none (no sheet was printed with it)."""
    path = survey_secret_path(run_dir)
    return path.read_bytes() if path.is_file() else None


#: The folder of a run that keeps the survey secrets of the runs merged into it whose secret was
#: another (`keep_sheet_secret`): the sheets printed there name their poems by codes under them.
MERGED_SECRETS_DIR = "survey-sheet-secrets"


def sheet_secrets(run_dir: Path) -> list[bytes]:
    """Every secret the run's sheets may have been printed with: its own survey secret, then
    those kept from runs merged into it (`keep_sheet_secret`)."""
    own = survey_secret(run_dir)
    folder = Path(run_dir) / MERGED_SECRETS_DIR
    kept = [path.read_bytes() for path in sorted(folder.glob("*.key"))] if folder.is_dir() else []
    return list(dict.fromkeys([*([own] if own is not None else []), *kept]))


def keep_sheet_secret(run_dir: Path, secret: bytes) -> None:
    """Keep `secret`, the survey secret of a run merged into `run_dir` that is not its own, so
    that the codes on the sheets printed there still name their poems here (`sheet_codes`). It
    makes no link of this run: those come from the run's own secret alone."""
    if secret == survey_secret(run_dir):
        return
    folder = Path(run_dir) / MERGED_SECRETS_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{hashlib.sha256(secret).hexdigest()[:16]}.key"
    if path.exists():
        return
    write_secret_file(path, secret)


def sheet_codes(store: RunStore) -> dict[str, str]:
    """code -> generation_id of every poem the run's surveys assigned, as their sheets name
    them, under the run's survey secret or one kept from a run merged into it (none without
    any: no sheet could have been printed)."""
    rows = store.query("SELECT DISTINCT survey_id, generation_id FROM survey_assignments")
    return {
        poem_code(secret, row[0], row[1]): row[1]
        for secret in reversed(sheet_secrets(store.run_dir))  # the run's own secret last: first
        for row in rows
    }

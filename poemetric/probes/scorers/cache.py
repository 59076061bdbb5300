"""Scores of single texts kept while `probe run` works, so that a stopped run resumes.

`probe run -o SCORES.jsonl` with a local scorer (`hf:`, `vllm:`, `ngram`) stores every text it scores
in `SCORES.jsonl.cache.sqlite` as it goes (`cache_path`), and removes that file once
SCORES.jsonl is written (a run of some pairs only, `--limit` or `--tasks`, keeps the texts it
did not use, a stopped run's, for the run of all pairs). Run again after Ctrl-C, SIGTERM or a crash, it reads back the texts
scored before and scores only the rest.

SQLite rather than a JSONL file appended to: rows go in by transactions, so a stop at any
moment (SIGKILL, a full disk) leaves whole rows and a readable file, never a torn last line to
repair; texts are looked up by key; two runs writing beside one output cannot interleave lines;
and the run stores are SQLite already.

A row's key is a SHA-256 of the scorer's *identity* (all that decides a score besides the text:
scorer kind, model location, its weight files' size and modification time, the hub revision,
dtype, device, prefix token, library versions...), a *context* (`ngram`: the poems it trains
on) and the text. A cache written by another scorer, model or setting is never read: its rows
match no key (`notes` says how many were passed over). The batch size is not in the key: a text
read back keeps the score it got; the `hf:` scorer commits whole batches in its length order,
so a rerun with the same `--batch-size` scores the rest in the batches an uninterrupted run
would have, and writes the same scores.

Some of the identity is known only once the model is loaded (`hf:` the prefix token, which
needs the tokenizer; `vllm:` the engine's dtype), and a model takes seconds to minutes to load.
So the cache also keeps, beside the rows, the identity each *request* resolved to (a request:
the identity's parts known before loading: the scorer, the model file's settings and weights
fingerprint, the device, the options asked for, the library versions). A rerun that makes the
same request looks its identity up (`recall`) and, when every text is stored under it, scores
nothing and loads nothing. Anything else (a text missing, another request) loads the model and
keys every row by the identity that load resolves, as before.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from poemetric.providers.model_source import ModelSource
from poemetric.providers.transformers_engine import SequenceScore
from poemetric.text.plural import counted, plural

SUFFIX = ".cache.sqlite"
#: Rows are committed at most this often (and when the cache is closed, Ctrl-C included).
COMMIT_EVERY_S = 0.5
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, identity TEXT NOT NULL, "
    "logprob_sum REAL, n_tokens INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS identities (identity TEXT PRIMARY KEY, description TEXT)",
    # What a request (the identity's parts known before the model loads) resolved to.
    "CREATE TABLE IF NOT EXISTS requests (request TEXT PRIMARY KEY, identity TEXT NOT NULL)",
)


def cache_path(output: Path) -> Path:
    """`scores.jsonl` -> `scores.jsonl.cache.sqlite` (beside it; not a `*.jsonl` file, so the run
    report's probe section does not read it)."""
    return output.with_name(output.name + SUFFIX)


def digest(value: Any) -> str:
    """SHA-256 of `value` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ScoreCache:
    """The per-text scores of one `probe run` output (see the module docstring).

    `bind(identity, request)` once the scorer knows its settings (after its model loaded), or
    `recall(request)` before loading it; then `key`, `lookup` and `store`. `reused` and `stored`
    count this run's texts read back and written. The file is created by the first `store`, so
    a run stopped before it scored anything leaves none.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity: str | None = None
        self.reused = 0
        self.stored = 0
        self.other = 0  # rows of another identity found at `bind`
        self._touched: set[str] = set()  # keys this run read back or stored
        self._description = ""
        self._request: str | None = None  # digest of the request `bind` resolved
        self._db: sqlite3.Connection | None = None
        self._committed = -math.inf  # the first rows are committed at once

    @classmethod
    def beside(cls, output: Path) -> ScoreCache:
        return cls(cache_path(output))

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = sqlite3.connect(self.path, timeout=60)
            for statement in _SCHEMA:
                self._db.execute(statement)
            self._db.commit()
        return self._db

    def bind(self, identity: Mapping[str, Any], request: Mapping[str, Any] | None = None) -> None:
        """Use the rows of `identity` only (scorer, model, settings: never the batch size);
        `request`, the part of it known before loading, is kept as resolving to it (`recall`)."""
        self._use(digest(identity), json.dumps(identity, sort_keys=True, ensure_ascii=False))
        self._request = None if request is None else digest(request)
        if self._request is not None and self.path.exists():  # known for the rows kept so far
            self._remember()

    def recall(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        """The identity a run that made `request` resolved (after loading its model), bound as
        `bind` binds it; None when no run of this cache made it."""
        if not self.path.exists():
            return None
        query = (
            "SELECT i.identity, i.description FROM requests r JOIN identities i "
            "ON i.identity = r.identity WHERE r.request = ?"
        )
        found = self._open().execute(query, (digest(request),)).fetchone()
        if found is None:
            return None
        identity, description = found
        resolved: dict[str, Any] = json.loads(description)
        if digest(resolved) != identity:  # written by another version of the description
            return None
        self._use(identity, description)
        return resolved

    def holds(self, keys: Sequence[str]) -> bool:
        """Whether every one of `keys` is stored (nothing is counted as reused)."""
        unique = list(dict.fromkeys(keys))
        if not self.path.exists():
            return not unique
        db, present = self._open(), 0
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            query = f"SELECT COUNT(*) FROM scores WHERE key IN ({','.join('?' * len(chunk))})"
            present += int(db.execute(query, chunk).fetchone()[0])
        return present == len(unique)

    def _use(self, identity: str, description: str) -> None:
        self.identity, self._description = identity, description
        if self.path.exists():
            query = "SELECT COUNT(*) FROM scores WHERE identity != ?"
            self.other = int(self._open().execute(query, (self.identity,)).fetchone()[0])

    def _remember(self) -> None:
        db = self._open()
        db.execute(
            "INSERT OR IGNORE INTO identities VALUES (?, ?)", (self.identity, self._description)
        )
        if self._request is not None:
            db.execute(
                "INSERT OR REPLACE INTO requests VALUES (?, ?)", (self._request, self.identity)
            )

    def key(self, text: str, context: str = "") -> str:
        if self.identity is None:
            raise RuntimeError("ScoreCache.bind first")
        return digest([self.identity, context, text])

    def lookup(self, keys: Sequence[str]) -> dict[str, SequenceScore]:
        """The stored scores among `keys` (each counted in `reused`)."""
        if not self.path.exists():
            return {}
        db, found = self._open(), {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, logprob_sum, n_tokens FROM scores WHERE key IN ({marks})"
            for key, total, count in db.execute(query, chunk):
                found[key] = SequenceScore(math.nan if total is None else total, int(count))
        self.reused += len(found)
        self._touched.update(found)
        return found

    def store(self, scored: Sequence[tuple[str, SequenceScore]]) -> None:
        """Keep `(key, score)` rows; committed every COMMIT_EVERY_S seconds and at `close`."""
        if not scored:
            return
        db = self._open()
        if self.stored == 0:
            self._remember()
        rows = [(k, self.identity, s.logprob_sum, s.n_tokens) for k, s in scored]
        self._touched.update(k for k, _ in scored)
        db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)", rows)
        self.stored += len(rows)
        if time.monotonic() - self._committed >= COMMIT_EVERY_S:
            self.commit()

    def commit(self) -> None:
        if self._db is not None:
            self._db.commit()
            self._committed = time.monotonic()

    def close(self) -> None:
        """Commit what is stored and close the file (kept for the next run)."""
        if self._db is not None:
            self.commit()
            self._db.close()
            self._db = None

    def kept(self) -> int:
        """Texts the next run can read back: this identity's rows (all rows before `bind`). A
        file without a row (a stop as it was made) is removed."""
        self.close()
        if not self.path.exists():
            return 0
        db = sqlite3.connect(self.path, timeout=60)
        try:
            total = int(db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
            query = "SELECT COUNT(*) FROM scores WHERE identity = ?"
            mine = int(db.execute(query, (self.identity,)).fetchone()[0])
        except sqlite3.OperationalError:  # no table yet
            total = mine = 0
        finally:
            db.close()
        if not total:
            self.remove()
        return total if self.identity is None else mine

    def finish(self, *, keep_others: bool = False) -> list[str]:
        """Delete the file (the scores file is written) and say what the run took from it:
        `reused 123 scored texts from PATH`, and the rows of other settings it passed over.
        `keep_others` (a run of some pairs only: `--limit`, `--tasks`): the texts of this
        scorer that the run neither read back nor scored, those of the pairs it left out, stay
        in the file for the run of all pairs (a trial after a stop threw them away)."""
        left = self._left_out() if keep_others else 0
        if left:
            self._forget_others()
        else:
            self.remove()
        notes = []
        if self.reused:
            texts = counted(self.reused, "scored text")
            notes.append(f"reused {texts} from {self.path} (a stopped run)")
        if self.other:
            notes.append(
                f"{self.path}: {counted(self.other, 'text')} scored by another scorer, model or "
                f"setting {plural(self.other, 'was', 'were')} not reused"
            )
        if left:
            notes.append(
                f"kept {counted(left, 'scored text')} this run did not use in {self.path}: the "
                f"run of all pairs reads {plural(left, 'it', 'them')} back"
            )
        return notes

    def _left_out(self) -> int:
        """Rows of this identity that this run neither read back nor stored."""
        if self.identity is None or not self.path.exists():
            return 0
        query = "SELECT key FROM scores WHERE identity = ?"
        keys = {key for (key,) in self._open().execute(query, (self.identity,))}
        return len(keys - self._touched)

    def _forget_others(self) -> None:
        """Drop the rows of other identities (never read again) and close the file."""
        db = self._open()
        db.execute("DELETE FROM scores WHERE identity != ?", (self.identity,))
        self.close()

    def remove(self) -> None:
        """Close and delete the file (the scores file is complete)."""
        if self._db is not None:
            self._db.close()
            self._db = None
        for path in (self.path, self.path.with_name(self.path.name + "-journal")):
            path.unlink(missing_ok=True)


def weights_fingerprint(source: ModelSource) -> dict[str, Any]:
    """What identifies the weights a model loads: its folder (for a hub id, the snapshot in the
    local Hugging Face cache, named by its commit) and each file read from it (the GGUF file, or
    the folder's files) with its resolved path (a hub blob is named by its content hash), size
    and modification time. Hashing the files would take minutes for a big model."""
    folder: Path | None = Path(source.location).expanduser()
    if folder is not None and not folder.is_dir():
        folder = _hub_snapshot(source.location, source.gguf_file or "config.json")
    if folder is None:
        return {"location": source.location, "files": None}
    files = (
        [folder / source.gguf_file]
        if source.gguf_file
        else sorted(p for p in folder.iterdir() if p.is_file())
    )
    described = []
    for file in files:
        stat = file.stat()
        described.append([file.name, str(file.resolve()), stat.st_size, stat.st_mtime_ns])
    return {"location": str(folder.resolve()), "snapshot": folder.name, "files": described}


def _hub_snapshot(repo_id: str, filename: str) -> Path | None:
    """The snapshot folder of a hub model in the local cache (its name is the commit), or None."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, filename)
    except (ImportError, ValueError):  # not a repo id (huggingface_hub validates it)
        return None
    return Path(found).parent if isinstance(found, str) else None

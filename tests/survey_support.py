"""A small run with human and machine poems, a scripted judge, and a live survey server."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted

from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.providers.base import Completion, GenerationRequest
from poemetric.store import RunStore


def judge_answer(request: GenerationRequest, number: int) -> Completion:
    """A valid questionnaire answer whose scores vary with the poem."""
    seed = sum(map(ord, request.messages[-1].content))
    scores = {str(q): 1 + (seed // (q + 1)) % 5 for q in (1, 2, 3, 4, 5, 6, 7, 8, 10, 12)}
    comments = {"9": "some devices", "11": "fine", "13": "regular"}
    return Completion(text=json.dumps({**scores, **comments}), raw={"n": number})


def survey_run(path: Path, poems: int = 6, judge: bool = False) -> Path:
    """A run at `path` with `poems` human and `poems` machine poems (and a judge's scores).

    Built in a worker thread: the stages run their own event loop, and Playwright's sync API
    may already hold one in this thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_build_run, path, poems, judge).result()


def _build_run(path: Path, poems: int, judge: bool) -> Path:
    use_scripted()
    store = prepared_store(path, poems=poems)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    if judge:
        use_scripted(judge_answer)
        run_judging(store, scripted_spec(name="judge-x"), options=FAST)
        use_scripted()
    store.close()
    return path


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run an ASGI app with uvicorn on a free local port in a thread; yields its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextmanager
def live_survey(
    folder: Path, raters: str = "ann,ben", per_poem: int = 2
) -> Iterator[tuple[Path, str]]:
    """A two-poem run in `folder` with an 'experts' survey (4 poems per rater, seed 1), served
    on a free local port: yields (run folder, base URL)."""
    from poemetric.survey.build import build_survey
    from poemetric.survey.web import create_app

    run = survey_run(folder / "run", poems=2)
    with RunStore(run, create=False) as store:
        build_survey(store, raters=raters, per_rater=4, per_poem=per_poem, seed=1)
    with serving(create_app(run, "experts")) as url:
        yield run, url


def rater_link(run: Path, url: str, rater: str) -> str:
    """The private survey link of `rater` ('experts' survey)."""
    from poemetric.survey import tokens

    return f"{url}/r/{tokens.rater_token(tokens.load_secret(run), 'experts', rater)}"


def add_generation(store: RunStore, generation_id: str, author: str, poem: str) -> None:
    """Another ok generation, a copy of a human row with this author and poem."""
    row = dict(store.query("SELECT * FROM generations WHERE author = 'human' LIMIT 1")[0])
    row.update(generation_id=generation_id, author=author, poem=poem)
    with store.transaction() as conn:
        conn.execute(
            f"INSERT INTO generations ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )


def answers_of(run: Path, rater: str) -> dict[tuple[str, str], tuple[Any, Any]]:
    with RunStore(run, create=False) as store:
        rows = store.query(
            "SELECT generation_id, question, score, text FROM survey_answers WHERE rater_id = ?",
            [rater],
        )
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}

"""`survey serve` needs the whole `survey` extra. With Starlette and uvicorn installed without it
(FastAPI brings both, not python-multipart), the pages were served and every answer a rater sent
was refused as "malformed form data": the command now stops before serving, naming the extra."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette import requests as starlette_requests
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app


def test_serve_without_a_form_parser_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    built = CliRunner().invoke(app, ["survey", "build", "--run", str(run), "--poems", "2"])
    assert built.exit_code == 0, built.output
    served: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: served.append(self))
    monkeypatch.setattr(starlette_requests, "parse_options_header", None)  # no python-multipart
    with socket.socket() as sock:  # a free port: without the check, serving binds it
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    result = CliRunner().invoke(app, ["survey", "serve", "--run", str(run), "--port", port])
    assert served == []
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        "error: the survey web app needs its extra: pip install 'poemetric[survey]' "
        "(python-multipart, which reads the answers raters send, is not installed)"
    ]

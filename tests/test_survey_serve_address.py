"""The address in the links `survey serve` and `survey links` print: the port served on, kept
for `links`, and no wildcard address (0.0.0.0) a rater cannot open."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app

runner = CliRunner()
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def run(tmp_path: Path) -> str:
    prepared_store(tmp_path / "run", poems=4).close()
    built = runner.invoke(app, ["survey", "build", "--run", str(tmp_path / "run"), "--poems", "2"])
    assert built.exit_code == 0, built.output
    return str(tmp_path / "run")


@contextmanager
def _serving(run: str, *options: str) -> Iterator[str]:
    """`survey serve` in its own process: yields what it printed up to the admin link."""
    command = [sys.executable, "-m", "poemetric", "survey", "serve", "--run", run, *options]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        lines: list[str] = []
        while not lines or (lines[-1] and not lines[-1].startswith(("admin", "error"))):
            lines.append(server.stdout.readline())
        yield "".join(lines)
    finally:
        server.terminate()
        server.wait(10)


def _links(output: str) -> list[str]:
    return re.findall(r"https?://\S+/(?:r|admin)/\S+", output)


def _get_once_up(url: str) -> int:
    """The status of GET `url` once the just-started server answers (up to about 10 s)."""
    for _ in range(100):
        try:
            return httpx.get(url, timeout=2).status_code
        except httpx.TransportError:
            time.sleep(0.1)
    return httpx.get(url, timeout=2).status_code


def test_links_reprinted_after_serve_on_another_port_point_at_that_port(run: str) -> None:
    """`survey links` printed http://127.0.0.1:8765/... whatever port `serve` used: after
    `serve --port 8799`, reprinted links opened nothing. It prints the address `serve` printed
    last, and --port / --base-url give another."""
    port = _free_port()
    with _serving(run, "--port", str(port)) as printed:
        served = _links(printed)
        assert served and all(link.startswith(f"http://127.0.0.1:{port}/") for link in served)
    again = runner.invoke(app, ["survey", "links", "--run", run])
    assert again.exit_code == 0, again.output
    assert _links(again.stdout) == served
    assert f"links for http://127.0.0.1:{port} (--base-url or --port" in again.stderr
    other = runner.invoke(app, ["survey", "links", "--run", run, "--port", "9001"])
    assert other.exit_code == 0 and other.stderr == "", other.output
    assert [link.replace(":9001/", f":{port}/") for link in _links(other.stdout)] == served
    both = runner.invoke(app, ["survey", "links", "--run", run, "--port", "1", "--base-url", "x"])
    assert both.exit_code == 2 and "give one" in both.stderr


def test_serve_on_every_interface_prints_links_a_rater_can_open(run: str) -> None:
    """`serve --host 0.0.0.0` printed http://0.0.0.0:PORT/... links, which open nothing on a
    rater's machine, and its warning did not say how to give the real address. The links use
    this machine's address, the warning says to pass --base-url when raters use another, and
    `survey links` prints the same links."""
    port = _free_port()
    with _serving(run, "--host", "0.0.0.0", "--port", str(port)) as printed:
        served = _links(printed)
        assert served and not any("0.0.0.0" in link for link in served), printed
        warning = " ".join(printed.split())
        assert "serve again with --base-url http://THAT-ADDRESS:" in warning, printed
        path = served[0].split(f":{port}", 1)[1]
        assert _get_once_up(f"http://127.0.0.1:{port}{path}") == 200
    again = runner.invoke(app, ["survey", "links", "--run", run])
    assert _links(again.stdout) == served
    with _serving(run, "--host", "0.0.0.0", "--port", str(port), "--base-url",
                  "https://rate.example.org") as printed:  # fmt: skip
        assert all(link.startswith("https://rate.example.org/") for link in _links(printed))
        assert "THAT-ADDRESS" not in printed

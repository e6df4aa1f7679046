"""Every code block of docs/guides/ runs, as written, against a live server: the guides never rot.

The server is set up the way `make run` sets it up (migrate, `setup_local`, the background worker beside it),
on an SQLite file of the test's own, served by gunicorn on a free port. A guide's `sh` blocks run in order as one
bash script and its `python` blocks in order as one Python program, from the root of the checkout, so each
column of a guide is followed from top to bottom exactly as a reader pastes it. The only rewriting: the
addresses `make run` uses become the test's (`http://127.0.0.1:8000`, the receiver's port 9000) and `.local/`
(the key `make run` wrote, the receiver's secret) the test's own directory.

Markers, an HTML comment on the line before a block:
- `<!-- guide: skip (why) -->`: not run (`make run` itself, production commands). Keep these few.
- `<!-- guide: background -->`: started before the guide's other blocks and left running (a webhook receiver);
  its output is checked for what the guide says it prints.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.servers import ROOT, Server, free_port, gunicorn

GUIDES = ROOT / "docs" / "guides"
BLOCK = re.compile(r"(?:<!--\s*guide:\s*(?P<marker>\w+)[^>]*-->\s*\n)?```(?P<lang>\w+)\n(?P<code>.*?)```", re.DOTALL)
RUNNABLE = {"sh", "python"}
# `text` blocks show what the reader will see: the run must print it (the receiver, for a background block).
SHOWN = "text"
# Every language a guide may use; a block in another one fails the test instead of silently not running.
KNOWN = RUNNABLE | {SHOWN}
MAKE_RUN_URL = "http://127.0.0.1:8000"
LOCAL_DIR = ".local/"
RECEIVER_PORT = "9000"
STEP_TIMEOUT = 300  # a guide's whole column; nothing here is timed, the bound only keeps a hang from lasting


@dataclass
class Block:
    lang: str
    code: str
    marker: str | None
    line: int


@dataclass
class Guide:
    path: Path
    blocks: list[Block] = field(default_factory=list)

    def runnable(self, lang: str, marker: str | None = None) -> list[Block]:
        return [block for block in self.blocks if block.lang == lang and block.marker == marker]


def parse(path: Path) -> Guide:
    text = path.read_text()
    guide = Guide(path)
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("code"))
        guide.blocks.append(Block(match["lang"], match["code"], match["marker"], line))
    return guide


def guide_paths() -> list[Path]:
    return sorted(GUIDES.glob("*.md"))


@dataclass(frozen=True)
class Local:
    """What `make run` would have made: a server, its worker, its key, and the environment to reach them."""

    server: Server
    home: Path
    env: dict[str, str]


def _manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def local(tmp_path_factory) -> Iterator[Local]:
    home = tmp_path_factory.mktemp("make-run")
    key_path = home / "default-api-key.pem"
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_DEBUG": "true",
        "LOCAL_ENV_FILE": str(home / "env"),  # the test's own, not the developer's .local/env
        "DATABASE_URL": f"sqlite:///{home / 'db.sqlite3'}",
        "LOG_LEVEL": "WARNING",
        "WEBHOOK_RETRY_BASE_SECONDS": "1",
        # One process, as `make run`'s development server: a subscription is known at once to whoever pays.
        "WEB_CONCURRENCY": "1",
    }
    env.pop("REDIS_URL", None)  # the embedded default, as on a fresh clone
    _manage("init_local_env", "--path", str(home / "env"), env=env)
    _manage("migrate", "--no-input", env=env)
    _manage("setup_local", "--private-key-out", str(key_path), env=env)
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with gunicorn(env) as server:
            yield Local(server, home, env)
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=10)


def localise(code: str, local: Local, receiver_port: str) -> str:
    return (
        code.replace(MAKE_RUN_URL, local.server.url)
        .replace(LOCAL_DIR, f"{local.home}/")
        .replace(f"127.0.0.1:{RECEIVER_PORT}", f"127.0.0.1:{receiver_port}")
        .replace(f"PORT = {RECEIVER_PORT}", f"PORT = {receiver_port}")
    )


# A failed request must fail the script, as it would stop a reader; the guides' own curl lines stay short.
SH_PRELUDE = """set -euo pipefail
curl() {
  case " $* " in
    *" --fail"* | *" -f"*) command curl "$@" ;;
    *) command curl --fail-with-body --show-error "$@" ;;
  esac
}
"""


def run(lang: str, blocks: list[Block], local: Local, receiver_port: str) -> subprocess.CompletedProcess:
    code = "\n".join(localise(block.code, local, receiver_port) for block in blocks)
    command = ["bash", "-c", SH_PRELUDE + code] if lang == "sh" else [sys.executable, "-c", code]
    return subprocess.run(command, cwd=ROOT, env=local.env, capture_output=True, text=True, timeout=STEP_TIMEOUT)


@pytest.fixture
def receiver(tmp_path) -> tuple[str, Path]:
    """The port a guide's background receiver listens on, and where its output goes."""
    return str(free_port()), tmp_path / "receiver.log"


def start_background(blocks: list[Block], local: Local, port: str, log: Path) -> list[subprocess.Popen]:
    processes = []
    for block in blocks:
        code = localise(block.code, local, port)
        command = ["bash", "-c", code] if block.lang == "sh" else [sys.executable, "-u", "-c", code]
        with log.open("ab") as out:
            processes.append(subprocess.Popen(command, cwd=ROOT, env=local.env, stdout=out, stderr=subprocess.STDOUT))
    _wait_for_port(int(port), processes, log)
    return processes


def _wait_for_port(port: int, processes: list[subprocess.Popen], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for process in processes:
            assert process.poll() is None, f"a background block exited: {log.read_text()}"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"the background block never listened on {port}: {log.read_text()}")


def wait_for_text(log: Path, text: str) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        output = log.read_text()
        if text in output:
            return output
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared in the receiver's output:\n{log.read_text()}")


def test_every_guide_is_found_and_linked_from_the_readme():
    names = [path.name for path in guide_paths()]
    assert names == ["first-payment.md", "production.md", "saved-cards.md", "webhooks.md"]
    readme = (ROOT / "README.md").read_text()
    head = readme[: readme.index("## What it is")]
    for name in names:
        assert f"docs/guides/{name}" in head


@pytest.mark.parametrize("path", guide_paths(), ids=lambda path: path.stem)
def test_every_block_is_marked_or_runnable(path):
    for block in parse(path).blocks:
        assert block.lang in KNOWN, f"{path.name}:{block.line}: a `{block.lang}` block"
        assert block.marker in (None, "skip", "background"), f"{path.name}:{block.line}: marker {block.marker}"
        if block.lang == SHOWN:
            assert block.marker is None, f"{path.name}:{block.line}: shown output is checked, never skipped"


def test_skipped_blocks_stay_few():
    skipped = [(path.name, block.line) for path in guide_paths() for block in parse(path).blocks if block.marker]
    run_ = [block for path in guide_paths() for block in parse(path).blocks if not block.marker]
    assert len(skipped) <= 6, skipped
    assert len(run_) >= 20


@pytest.mark.parametrize("path", guide_paths(), ids=lambda path: path.stem)
@pytest.mark.parametrize("lang", sorted(RUNNABLE))
def test_guide_runs_against_a_live_server(local, receiver, path, lang):
    guide = parse(path)
    blocks = guide.runnable(lang)
    if not blocks:
        pytest.skip(f"{path.name} has no {lang} blocks")
    port, log = receiver
    background = [block for block in guide.blocks if block.marker == "background"]
    processes = start_background(background, local, port, log) if background else []
    try:
        result = run(lang, blocks, local, port)
        assert result.returncode == 0, (
            f"{path.name} ({lang}) failed:\n{result.stdout}\n{result.stderr}\nserver:\n{local.server.output()[-3000:]}"
        )
        for expected in _expected_output(guide, lang):
            assert expected in result.stdout, f"{path.name} ({lang}) did not print {expected!r}:\n{result.stdout}"
        for shown in guide.runnable(SHOWN):
            if background:
                wait_for_text(log, shown.code.strip())
            else:
                assert shown.code.strip() in result.stdout
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def _expected_output(guide: Guide, lang: str) -> list[str]:
    """What the comments of a Python block promise it prints (`print(x)  # capture_succeeded 1000`)."""
    if lang != "python":
        return []
    promised = []
    for block in guide.runnable(lang):
        for line in block.code.splitlines():
            if line.lstrip().startswith("print(") and "  # " in line:
                promised.append(line.split("  # ", 1)[1].strip())
    return promised

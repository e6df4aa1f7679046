"""Every code block of docs/guides/ runs, as written, against a live server: the guides never rot.

The server is set up the way `make run` sets it up (migrate, `setup_local`, the background worker beside it),
on an SQLite file of the test's own, served by gunicorn on a free port. A guide's `sh` blocks run in order as one
bash script and its `python` blocks in order as one Python program, from the root of the checkout, so each
column of a guide is followed from top to bottom exactly as a reader pastes it. Each guide sets its addresses once,
at the top, from the variables `make run` listens on (`HOST`, `PORT`; the webhook receiver's `RECEIVER_PORT`,
by default the port after the server's; localstripe's `STRIPE_PORT`, the Adyen mock's `ADYEN_PORT` and the PayPal
mock's `PAYPAL_PORT`, which the server's `STRIPE_API_BASE`, `ADYEN_API_BASE` and `PAYPAL_API_BASE` name): the test
sets them to its server's. The only rewriting:
`.local/` (the key `make run` wrote, the receiver's secret) becomes the test's own directory.

Markers, an HTML comment on the line before a block:
- `<!-- guide: skip (why) -->`: not run (`make run` itself, which the test starts its own way; cron lines). Keep
  these few.
- `<!-- guide: background -->`: started before the guide's other blocks and left running (a webhook receiver,
  localstripe, a processor's mock); its output is checked for what the guide says it prints. It listens on
  `STRIPE_PORT`, `ADYEN_PORT` or `PAYPAL_PORT` when it names one, else on the receiver's port.
- `<!-- guide: check -->`: a check a reader runs (an `sh` block, reaching the server at `$API` or, through the
  load balancer, `$SITE`): run in its place, and again against a server that answers every request with a redirect
  and an empty body (what plain HTTP to a production host gets), where it must fail.

docs/guides/production.md runs apart, on its own test's PostgreSQL database and Redis, against `make serve` with the
shipped nginx in front (as tests/test_nginx.py runs it): its environment file takes `DATABASE_URL`, `REDIS_URL` and
`FORWARDED_ALLOW_IPS` from the shell, `SITE` is nginx's HTTPS address (curl trusts the test's certificate through
`CURL_CA_BUNDLE`), and `MAKEFLAGS` keeps make from installing into the suite's virtualenv. Its background block
(`make serve`, which needs the environment the blocks above it write) starts in its place, not first.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from config.views import GUIDES as GUIDE_TITLES
from tests.nginx import nginx
from tests.servers import ROOT, Server, database_url, free_port, gunicorn

GUIDES = ROOT / "docs" / "guides"
BLOCK = re.compile(r"(?:<!--\s*guide:\s*(?P<marker>\w+)[^>]*-->\s*\n)?```(?P<lang>\w+)\n(?P<code>.*?)```", re.DOTALL)
RUNNABLE = {"sh", "python"}
# `text` blocks show what the reader will see: the run must print it (the receiver, for a background block).
SHOWN = "text"
# Every language a guide may use; a block in another one fails the test instead of silently not running.
KNOWN = RUNNABLE | {SHOWN}
LOCAL_DIR = ".local/"
# The addresses `make run` serves on by default: a guide names them in its first blocks only, from the variables.
DEFAULT_PORTS = ("8000", "8001", "9000")
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
        markers = (None, "check") if marker is None else (marker,)
        return [block for block in self.blocks if block.lang == lang and block.marker in markers]


def parse(path: Path) -> Guide:
    text = path.read_text()
    guide = Guide(path)
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("code"))
        guide.blocks.append(Block(match["lang"], match["code"], match["marker"], line))
    return guide


def guide_paths() -> list[Path]:
    return sorted(GUIDES.glob("*.md"))


PRODUCTION_GUIDE = GUIDES / "production.md"


def make_run_guides() -> list[Path]:
    """The guides followed against `make run`'s server; production.md has a test of its own."""
    return [path for path in guide_paths() if path != PRODUCTION_GUIDE]


@dataclass(frozen=True)
class Local:
    """What `make run` would have made: a server, its worker, its key, and the environment to reach them."""

    server: Server
    home: Path
    env: dict[str, str]
    stripe_port: int  # where the server expects Stripe: a guide starts localstripe there
    adyen_port: int  # where the server expects Adyen: a guide starts the Adyen mock there
    paypal_port: int  # where the server expects PayPal: a guide starts the PayPal mock there


def _manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@contextmanager
def make_run(home: Path) -> Iterator[Local]:
    """A server, its worker and its key, set up as `make run` sets them up, on an SQLite file under `home`."""
    key_path = home / "default-api-key.pem"
    stripe_port, adyen_port, paypal_port = free_port(), free_port(), free_port()
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
        # As docs/guides/stripe.md starts it: Stripe is the localstripe that guide runs (nothing listens otherwise).
        "STRIPE_API_BASE": f"http://127.0.0.1:{stripe_port}",
        # As docs/guides/adyen.md starts it: Adyen is the mock that guide runs.
        "ADYEN_API_BASE": f"http://127.0.0.1:{adyen_port}",
        # As docs/guides/paypal.md starts it: PayPal (and the buyer's PayPal page) is the mock that guide runs.
        "PAYPAL_API_BASE": f"http://127.0.0.1:{paypal_port}",
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
            yield Local(server, home, env, stripe_port, adyen_port, paypal_port)
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=10)


@pytest.fixture(scope="module")
def local(tmp_path_factory) -> Iterator[Local]:
    with make_run(tmp_path_factory.mktemp("make-run")) as made:
        yield made


def localise(code: str, local: Local) -> str:
    return code.replace(LOCAL_DIR, f"{local.home}/")


def addresses(local: Local, receiver_port: str) -> dict[str, str]:
    """What a reader's terminal holds after `make run` (HOST, PORT), and the receiver's port when not the default."""
    env = {**local.env, "HOST": "127.0.0.1", "PORT": str(local.server.port)}
    env |= {"STRIPE_PORT": str(local.stripe_port), "ADYEN_PORT": str(local.adyen_port)}
    env["PAYPAL_PORT"] = str(local.paypal_port)
    if receiver_port != str(local.server.port + 1):
        env["RECEIVER_PORT"] = receiver_port
    return env


# A failed request must fail the script, as it would stop a reader; the guides' own curl lines stay short.
SH_PRELUDE = """set -euo pipefail
curl() {
  case " $* " in
    *" --fail"* | *" -f"* | *" -w "*) command curl "$@" ;;  # -w: the guide checks the status itself
    *) command curl --fail-with-body --show-error "$@" ;;
  esac
}
"""


def run(lang: str, blocks: list[Block], local: Local, receiver_port: str) -> subprocess.CompletedProcess:
    code = "\n".join(localise(block.code, local) for block in blocks)
    command = ["bash", "-c", SH_PRELUDE + code] if lang == "sh" else [sys.executable, "-c", code]
    env = addresses(local, receiver_port)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT)


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture
def receiver(local, tmp_path) -> tuple[str, Path]:
    """The port a guide's background receiver listens on (its default, the server's port + 1, unless taken), and
    where its output goes."""
    port = local.server.port + 1
    return str(port if _free(port) else free_port()), tmp_path / "receiver.log"


def start_background(blocks: list[Block], local: Local, port: str, log: Path) -> list[subprocess.Popen]:
    processes = []
    for block in blocks:
        code = localise(block.code, local)
        command = ["bash", "-c", code] if block.lang == "sh" else [sys.executable, "-u", "-c", code]
        env = addresses(local, port)
        with log.open("ab") as out:
            processes.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
    for listens in {_listens_on(block, local, port) for block in blocks}:
        _wait_for_port(listens, processes, log)
    return processes


def _listens_on(block: Block, local: Local, receiver_port: str) -> int:
    """A background block serves the port it names: a processor's double, else the webhook receiver."""
    named = {"STRIPE_PORT": local.stripe_port, "ADYEN_PORT": local.adyen_port, "PAYPAL_PORT": local.paypal_port}
    return next((port for name, port in named.items() if name in block.code), int(receiver_port))


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
    assert names == [
        "adyen.md",
        "digital-wallets.md",
        "first-payment.md",
        "paypal.md",
        "production.md",
        "saved-cards.md",
        "stripe.md",
        "webhooks.md",
    ]
    readme = (ROOT / "README.md").read_text()
    head = readme[: readme.index("## What it is")]
    for name in names:
        assert f"docs/guides/{name}" in head
    assert sorted(GUIDE_TITLES) == [path.stem for path in guide_paths()]  # the front door lists every one


@pytest.mark.parametrize("path", guide_paths(), ids=lambda path: path.stem)
def test_every_block_is_marked_or_runnable(path):
    for block in parse(path).blocks:
        assert block.lang in KNOWN, f"{path.name}:{block.line}: a `{block.lang}` block"
        assert block.marker in (None, "skip", "background", "check"), f"{path.name}:{block.line}: {block.marker}"
        if block.marker == "check":
            # Only the production guide's test runs checks (against the server and against a redirect with an
            # empty body): a check elsewhere would never run.
            assert path == PRODUCTION_GUIDE, f"{path.name}:{block.line}: a check outside production.md never runs"
            assert block.lang == "sh", f"{path.name}:{block.line}: a check is a shell block"
            assert "$API" in block.code or "$SITE" in block.code, f"{path.name}:{block.line}: reaches no server"
        if block.lang == SHOWN:
            assert block.marker is None, f"{path.name}:{block.line}: shown output is checked, never skipped"


@pytest.mark.parametrize("path", make_run_guides(), ids=lambda path: path.stem)
def test_each_guide_shows_curl_and_the_sdk_side_by_side_as_the_readme_promises(path):
    guide = parse(path)
    assert guide.runnable("sh"), f"{path.name} has no curl column"
    assert guide.runnable("python"), f"{path.name} has no SDK column"


def _set_aside(block: Block) -> bool:
    return block.marker in ("skip", "background")


@pytest.mark.parametrize("path", guide_paths(), ids=lambda path: path.stem)
def test_each_guide_names_its_addresses_once_at_the_top_from_the_variables_make_run_uses(path):
    """The first `sh` and `python` blocks set the addresses from HOST and PORT; no later block names a port."""
    guide = parse(path)
    first = {lang: blocks[0] for lang in RUNNABLE if (blocks := guide.runnable(lang))}
    assert "${PORT:-8000}" in first["sh"].code
    assert "${HOST:-127.0.0.1}" in first["sh"].code
    if "python" in first:
        assert "os.environ.get('PORT', '8000')" in first["python"].code
    for block in guide.blocks:
        if block in first.values() or block.marker == "background" or block.lang not in RUNNABLE:
            continue
        for port in DEFAULT_PORTS:
            assert port not in block.code, f"{path.name}:{block.line}: port {port} named again"


def test_the_webhook_receiver_does_not_take_the_port_make_run_may_serve_on():
    """`PORT=9000 make run` (the README's example) leaves the receiver its own port."""
    receiver = parse(GUIDES / "webhooks.md").runnable("python", "background")[0].code
    port_line = next(line for line in receiver.splitlines() if line.startswith("PORT = "))
    env = {name: value for name, value in os.environ.items() if name not in ("PORT", "RECEIVER_PORT")}
    for server_port, expected in ((None, 8001), ("9000", 9001)):
        environment = {**env, **({"PORT": server_port} if server_port else {})}
        result = subprocess.run(
            [sys.executable, "-c", f"import os\n{port_line}\nprint(PORT)"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.stdout.strip() == str(expected), (server_port, result.stderr)


def test_skipped_blocks_stay_few():
    """At most two a guide: `make run` (or a production command), and what runs beside it (a receiver, localstripe)."""
    for path in guide_paths():
        skipped = [block.line for block in parse(path).blocks if _set_aside(block)]
        assert len(skipped) <= 2, (path.name, skipped)
    run_ = [block for path in guide_paths() for block in parse(path).blocks if not _set_aside(block)]
    assert len(run_) >= 20


# The columns followed against the module's server, so a later test knows what they made.
FOLLOWED: set[tuple[Path, str]] = set()


@pytest.mark.parametrize("path", make_run_guides(), ids=lambda path: path.stem)
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
        FOLLOWED.add((path, lang))
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


def follow(guide: Guide, lang: str, local: Local, receiver: tuple[str, Path]) -> None:
    """Follow one column of a guide from top to bottom, its receiver running, as a reader would."""
    port, log = receiver
    background = [block for block in guide.blocks if block.marker == "background"]
    processes = start_background(background, local, port, log) if background else []
    try:
        result = run(lang, guide.runnable(lang), local, port)
        assert result.returncode == 0, f"{guide.path.name} ({lang}) failed:\n{result.stdout}\n{result.stderr}"
        for shown in guide.runnable(SHOWN) if background else []:
            wait_for_text(log, shown.code.strip())
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def _webhook_status_failing(local: Local) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "webhook_status", "--failing"],
        cwd=ROOT,
        env=local.env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_after_every_guide_no_webhook_subscription_keeps_failing(local):
    """Run after every column of every guide above (this module's order): nothing they leave keeps failing."""
    status = _webhook_status_failing(local)
    assert status.returncode == 0, status.stdout + status.stderr


def test_every_guide_in_the_other_order_on_a_fresh_clone_leaves_no_failing_subscription(tmp_path):
    """Each column after the other, the guides in reverse order, a payment after the last: a subscription one
    column left behind (its receiver stopped) or two signing with different secrets would fail here."""
    with make_run(tmp_path / "make-run") as fresh:
        for path in reversed(make_run_guides()):
            for lang in ("sh", "python"):
                if parse(path).runnable(lang):
                    port = str(fresh.server.port + 1 if _free(fresh.server.port + 1) else free_port())
                    follow(parse(path), lang, fresh, (port, tmp_path / f"{path.stem}-{lang}.log"))
        first_payment = parse(GUIDES / "first-payment.md")
        run("sh", first_payment.runnable("sh"), fresh, "0")  # an event after every receiver stopped
        _wait_for_no_pending(fresh)
        status = _webhook_status_failing(fresh)
        assert status.returncode == 0, status.stdout + status.stderr


def _wait_for_no_pending(local: Local) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        listed = subprocess.run(
            [sys.executable, "manage.py", "webhook_status"], cwd=ROOT, env=local.env, capture_output=True, text=True
        )
        if " pending=" not in listed.stdout or all(" pending=0 " in line for line in listed.stdout.splitlines()):
            return
        time.sleep(0.5)


class _Redirect(BaseHTTPRequestHandler):
    """What plain HTTP to a production host behind TLS answers: a redirect with an empty body."""

    def _redirect(self) -> None:
        self.send_response(301)
        self.send_header("Location", f"https://payments.example.com{self.path}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _redirect

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def redirecting() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def _production_env(home: Path, port: int, site: str, certificate: Path) -> dict[str, str]:
    """An app host's shell: nothing of the suite's or the developer's settings, the services the test provides."""
    venv = Path(sys.executable).parent.parent
    settings_like = ("DJANGO_", "CARD_", "CURSOR_", "DATABASE_URL", "REDIS_URL", "LOCAL_ENV_FILE", "GR4VY_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(settings_like)}
    return env | {
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "SITE": site,
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": os.environ["REDIS_URL"],
        "FORWARDED_ALLOW_IPS": "127.0.0.1",  # where nginx connects from
        "WEB_CONCURRENCY": "2",
        "CURL_CA_BUNDLE": str(certificate),
        # `--old-file` the install stamp: the virtualenv running the suite is used as it is, never installed into.
        "MAKEFLAGS": f"-o {venv / '.installed'} -- VENV={venv}",
    }


def _production_script(guide: Guide, home: Path, serve_log: Path) -> str:
    """The guide's `sh` column as one script, its background block started in its place and left running."""
    parts = []
    for block in guide.blocks:
        code = block.code.replace(LOCAL_DIR, f"{home}/")
        if block.lang == "sh" and block.marker == "background":
            parts.append(f"( {code.strip()} ) >{serve_log} 2>&1 &")
        elif block.lang == "sh" and block.marker in (None, "check"):
            parts.append(code)
    return SH_PRELUDE + "\n".join(parts)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_production_guide_runs_against_make_serve_behind_nginx(tmp_path, redirecting):
    """production.md's `sh` column from top to bottom on an app host, `make serve` with nginx in front; then each of
    its checks again, alone: it passes there and fails against a server that answers with a redirect."""
    if "RedisCache" not in settings.CACHES["ratelimit"]["BACKEND"]:
        pytest.skip("needs Redis, as production does (set REDIS_URL)")
    guide = parse(PRODUCTION_GUIDE)
    home, port, serve_log = tmp_path / "host", free_port(), tmp_path / "serve.log"
    home.mkdir()
    with nginx(tmp_path / "nginx", port) as proxy:
        site = f"https://127.0.0.1:{proxy.https_port}"
        env = _production_env(home, port, site, tmp_path / "nginx" / "site.pem")
        script = subprocess.Popen(
            ["bash", "-c", _production_script(guide, home, serve_log)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # `make serve` stays in the script's group: stopped with it below
        )
        try:
            out, err = script.communicate(timeout=STEP_TIMEOUT)
            assert script.returncode == 0, f"{out}\n{err}\nmake serve:\n{serve_log.read_text()[-3000:]}"
            checks = [block for block in guide.blocks if block.marker == "check"]
            for check in checks:
                code = check.code.replace(LOCAL_DIR, f"{home}/")
                for api, passes in (((f"http://127.0.0.1:{port}", site), True), ((redirecting, redirecting), False)):
                    addressed = f'API="{api[0]}"\nSITE="{api[1]}"\n' + code
                    result = subprocess.run(
                        ["bash", "-c", SH_PRELUDE + addressed], cwd=ROOT, env=env, capture_output=True, text=True
                    )
                    assert (result.returncode == 0) == passes, f"{check.line} against {api}: {result}"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(script.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                script.wait(timeout=30)
            _wait_until_closed(port)


def _wait_until_closed(port: int) -> None:
    """gunicorn finishes its requests on SIGTERM: the test ends once it stopped listening."""
    deadline = time.monotonic() + 30
    while not _free(port) and time.monotonic() < deadline:
        time.sleep(0.2)

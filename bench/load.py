"""The server and the load generator: gunicorn started and stopped, wrk driving one case, CPU time counted."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

from bench.cases import Case, Result
from bench.fixtures import ROOT
from tests.processes import free_port

# The app servers the benchmark can run the project on (the "app servers" stage compares them; every other case runs
# on CHOSEN, what `make serve` runs). Each is a command line for (WSGI application, workers, port); the project's own
# gunicorn settings (config/gunicorn.conf.py) underlie every gunicorn variant, which overrides only its worker model.
GUNICORN = [sys.executable, "-m", "gunicorn", "--config", "config/gunicorn.conf.py"]
APP_SERVERS: dict[str, Callable[[str, int, int], list[str]]] = {
    "gunicorn sync": lambda app, workers, port: [*GUNICORN, app],
    # The production layout (docs/deploy.md): nginx with config/nginx.conf keeps the clients' connections alive.
    "nginx + gunicorn sync": lambda app, workers, port: [sys.executable, "-m", "bench.proxied", app],
    "gthread keep-alive": lambda app, workers, port: [*GUNICORN, "--worker-class", "gthread", "--keep-alive", "5", app],
    "gthread keep-alive, 2 connections": lambda app, workers, port: [
        *GUNICORN, "--worker-class", "gthread", "--keep-alive", "5", "--worker-connections", "2", app
    ],
    "gthread no keep-alive": lambda app, workers, port: [
        *GUNICORN, "--worker-class", "gthread", "--keep-alive", "0", "--worker-connections", "1", app
    ],
    "granian": lambda app, workers, port: [
        sys.executable, "-m", "granian", "--interface", "wsgi", "--http", "1", "--no-ws", "--workers", str(workers),
        "--blocking-threads", "1", "--backpressure", "1", "--log-level", "warning",
        "--host", "127.0.0.1", "--port", str(port), app,
    ],
}  # fmt: skip
CHOSEN = "gunicorn sync"


def start_server(
    env: dict[str, str],
    workers: int,
    log: Path,
    ready_path: str = "/readyz",
    server: str = CHOSEN,
    app: str = "bench.counted:application",
) -> tuple[subprocess.Popen, str]:
    port = free_port()
    # No recycling of workers during the run: a fresh worker would start with cold caches.
    server_env = {
        **os.environ,
        **env,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(workers),
        "WEB_MAX_REQUESTS": "0",
    }
    command = APP_SERVERS[server](app, workers, port)
    process = subprocess.Popen(
        command, cwd=ROOT, env=server_env, stdout=subprocess.DEVNULL, stderr=log.open("wb"), start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + ready_path, timeout=2) as response:  # noqa: S310 - loopback
                if response.status == 200:
                    return process, base
        except OSError:  # refused, reset, timed out (URLError is one too): not ready yet
            pass
        if process.poll() is not None:
            break
        time.sleep(0.5)
    stop_server(process)
    raise SystemExit(f"{server} did not become ready; see {log}")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("wrk is missing: installing Debian's package")
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "wrk"], check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    )
    return shutil.which("wrk") or sys.exit("wrk could not be installed")


def _lua_string(value: str) -> str:
    return "[==[" + value + "]==]"


def wrk_script(case: Case) -> str:
    """A wrk script sending the case's request and printing one JSON result line."""
    headers = ", ".join(f"[ {_lua_string(k)} ] = {_lua_string(v)}" for k, v in case.headers.items())
    unique = _lua_string(case.unique_header) if case.unique_header else "nil"
    body = _lua_string(case.body) if case.body is not None else "nil"
    return f"""
local headers = {{ {headers} }}
local unique, body, counter, thread_id = {unique}, {body}, 0, 0
local threads = {{}}
setup = function(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end
init = function(args) thread_id = wrk.thread:get("thread_id") end
request = function()
  if unique then
    counter = counter + 1
    headers[unique] = string.format("bench-%d-%d-%d-%d", os.time(), math.random(1000000000), thread_id, counter)
  end
  return wrk.format({_lua_string(case.method)}, nil, headers, body)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {{"requests": %d, "micros": %d, "p50": %d, "p99": %d, "max": %d, "bad": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect + e.read + e.write + e.status + e.timeout))
end
"""


def cpu_seconds(pids: list[str]) -> dict[str, float]:
    """User plus system CPU time of each of these processes so far."""
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited
        seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


def cpu_spent(before: dict[str, float], pids: list[str]) -> float:
    """CPU seconds these processes spent since `before` (a process started since counts from zero)."""
    return sum(now - before.get(pid, 0.0) for pid, now in cpu_seconds(pids).items())


def _children(pid: int) -> list[str]:
    return subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout.split()


def _database_backends(database: str) -> list[str]:
    return subprocess.run(
        ["pgrep", "-f", f"postgres: .* {database} "], capture_output=True, text=True, check=False
    ).stdout.split()


def drive(
    wrk: str, server: tuple[subprocess.Popen, str], case: Case, seconds: float, connections: int, scripts: Path
) -> Result:
    process, base = server
    script = scripts / f"{case.name.replace(' ', '_').replace('/', '_')}.lua"
    script.write_text(wrk_script(case))
    load = ["-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s"]
    command = [wrk, *load, "-s", str(script), base + case.path]
    # CPU spent per request, by the app and by the database, holds still when other work shares the
    # machine; throughput and latency do not.
    database = urlparse(os.environ["DATABASE_URL"]).path[1:]
    app_before, db_before = cpu_seconds(_children(process.pid)), cpu_seconds(_database_backends(database))
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    line = next((line for line in run.stdout.splitlines() if line.startswith("BENCH_RESULT ")), None)
    if run.returncode or line is None:
        raise SystemExit(f"wrk failed on {case.name}:\n{run.stdout}{run.stderr}")
    data = json.loads(line.removeprefix("BENCH_RESULT "))
    # wrk stops with requests still running on the server: let them finish before the next case starts.
    time.sleep(min(data["max"] / 1e6, 10) + 0.2)
    requests = max(data["requests"], 1)
    return Result(
        requests=data["requests"],
        seconds=data["micros"] / 1e6,
        p50_ms=data["p50"] / 1000,
        p99_ms=data["p99"] / 1000,
        bad=data["bad"],
        app_cpu_ms=1000 * cpu_spent(app_before, _children(process.pid)) / requests,
        db_cpu_ms=1000 * cpu_spent(db_before, _database_backends(database)) / requests,
    )

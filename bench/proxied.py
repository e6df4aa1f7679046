"""`python -m bench.proxied APP`: the production layout on one machine, for the app-server stage: gunicorn as
`make serve` runs it (sync workers, config/gunicorn.conf.py) on a port of its own, and Debian's nginx with the
shipped config/nginx.conf in front of it on $PORT. Runs until SIGTERM, then stops both."""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType

from bench.fixtures import ROOT
from bench.load import GUNICORN
from tests.nginx import nginx
from tests.processes import free_port


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # leave the context managers below: they stop nginx and gunicorn


def main(app: str) -> None:
    signal.signal(signal.SIGTERM, _stop)
    inner = free_port()
    env = {**os.environ, "PORT": str(inner), "HOST": "127.0.0.1"}
    gunicorn = subprocess.Popen([*GUNICORN, app], cwd=ROOT, env=env)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="bench-nginx-") as folder,
            nginx(Path(folder), inner, http_port=int(os.environ["PORT"])),
        ):
            gunicorn.wait()
    finally:
        if gunicorn.poll() is None:
            gunicorn.terminate()
            gunicorn.wait(timeout=30)


if __name__ == "__main__":
    main(sys.argv[1])

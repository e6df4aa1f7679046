"""The benchmark's gunicorn settings: the project's own (config/gunicorn.conf.py), plus a count of the requests
each worker serves, so `bench/run.py` can show how evenly the workers share the load.

The counts live in a file of 8-byte slots (`BENCH_WORKER_COUNTS`), mapped by every worker: a worker takes the
slot of its age (1, 2, ... in the order the master started them) and adds one after each request. Nothing is
written to disk per request; the reader maps the same file.
"""

import mmap
import os
import runpy
import struct
import threading
from pathlib import Path

_PROJECT_CONFIG = Path(__file__).resolve().parent.parent / "config" / "gunicorn.conf.py"
globals().update({name: value for name, value in runpy.run_path(str(_PROJECT_CONFIG)).items() if name[:2] != "__"})

SLOTS = 64
_counts_path = os.environ.get("BENCH_WORKER_COUNTS")
_counts: mmap.mmap | None = None
_lock = threading.Lock()  # a worker with several threads counts each request once


def post_worker_init(worker) -> None:  # type: ignore[no-untyped-def]
    global _counts
    if _counts_path:
        with open(_counts_path, "r+b") as file:
            _counts = mmap.mmap(file.fileno(), SLOTS * 8)


def post_request(worker, req, environ, resp) -> None:  # type: ignore[no-untyped-def]
    if _counts is not None:
        offset = (worker.age % SLOTS) * 8
        with _lock:
            (served,) = struct.unpack_from("<Q", _counts, offset)
            struct.pack_into("<Q", _counts, offset, served + 1)

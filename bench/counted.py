"""The project's WSGI application, counting the requests each worker process serves, whatever the app server
(`bench/servers.py` compares several): the benchmark reads how evenly the workers share the load.

The counts live in a file of 8-byte slots (`BENCH_WORKER_COUNTS`), mapped by every worker. Slot 0 holds the
next free slot; a worker takes one (under a file lock) at its first request and adds one after each request.
Nothing is written to disk per request; the reader maps the same file. Without the variable nothing is counted.
"""

import fcntl
import mmap
import os
import struct
import threading

from config.wsgi import application as project_application

SLOTS = 64
_counts_path = os.environ.get("BENCH_WORKER_COUNTS")
_lock = threading.Lock()  # a worker with several threads counts each request once
_mine: dict[str, object] = {}  # this process's map and slot offset


def _slot() -> tuple[mmap.mmap, int]:
    if _mine.get("pid") != os.getpid():  # first request of this process (a fork copies the parent's state)
        with open(str(_counts_path), "r+b") as file:
            fcntl.flock(file, fcntl.LOCK_EX)
            counts = mmap.mmap(file.fileno(), SLOTS * 8)
            (taken,) = struct.unpack_from("<Q", counts, 0)
            slot = taken + 1
            struct.pack_into("<Q", counts, 0, slot)
            fcntl.flock(file, fcntl.LOCK_UN)
        _mine.update(pid=os.getpid(), counts=counts, offset=(slot % SLOTS) * 8)
    return _mine["counts"], _mine["offset"]  # type: ignore[return-value]


def application(environ, start_response):  # type: ignore[no-untyped-def]
    response = project_application(environ, start_response)
    if _counts_path:
        with _lock:
            counts, offset = _slot()
            (served,) = struct.unpack_from("<Q", counts, offset)
            struct.pack_into("<Q", counts, offset, served + 1)
    return response

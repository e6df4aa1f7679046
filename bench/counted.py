"""The project's WSGI application, counting the requests each worker process serves, whatever the app server
(the "app servers" stage compares several): the benchmark reads how evenly the workers share the load. With
`BENCH_PROCESSOR_TIMES` (a directory) it also writes, per request, the seconds the application took and the seconds
of it spent in Stripe's library waiting for the processor's HTTP answers, and the same two as the worker thread's CPU
time (bench/processors.py).

The counts live in a file of 8-byte slots (`BENCH_WORKER_COUNTS`), mapped by every worker. Slot 0 holds the
next free slot; a worker takes one (under a file lock) at its first request and adds one after each request.
Nothing is written to disk per request; the reader maps the same file. Without the variable nothing is counted.
"""

import fcntl
import mmap
import os
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

import stripe

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


_timings_dir = os.environ.get("BENCH_PROCESSOR_TIMES")
_processor = threading.local()


def _timed(call: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started, started_cpu = time.perf_counter(), time.thread_time()
        try:
            return call(*args, **kwargs)
        finally:
            # A call outside a request (none is made now) would find no totals of its thread: it starts them.
            _processor.seconds = getattr(_processor, "seconds", 0.0) + time.perf_counter() - started
            _processor.cpu_seconds = getattr(_processor, "cpu_seconds", 0.0) + time.thread_time() - started_cpu

    return timed


if _timings_dir:
    # Every HTTP call the stripe library makes goes through this one method of its requests-based client.
    stripe.RequestsClient._request_internal = _timed(stripe.RequestsClient._request_internal)  # type: ignore[method-assign]


def application(environ, start_response):
    _processor.seconds = _processor.cpu_seconds = 0.0
    started, started_cpu = time.perf_counter(), time.thread_time()
    response = project_application(environ, start_response)
    if _timings_dir:
        took, took_cpu = time.perf_counter() - started, time.thread_time() - started_cpu
        with open(os.path.join(_timings_dir, f"{os.getpid()}.txt"), "a") as timings:
            timings.write(f"{took:.6f} {_processor.seconds:.6f} {took_cpu:.6f} {_processor.cpu_seconds:.6f}\n")
    if _counts_path:
        with _lock:
            counts, offset = _slot()
            (served,) = struct.unpack_from("<Q", counts, offset)
            struct.pack_into("<Q", counts, offset, served + 1)
    return response

"""App servers: throughput, p99 and fair workers (every worker serves its share of the requests), one server after
another, on `GET /buyers?limit=20` with more keep-alive connections than workers."""

import statistics
import struct
from pathlib import Path

from bench.cases import Case
from bench.load import APP_SERVERS, drive, start_server, stop_server

# (workers, keep-alive connections): more connections than workers, and many more.
FAIRNESS_LAYOUTS = ((2, 8), (5, 64))
FAIRNESS_TOLERANCE = 0.25  # every worker serves within 25% of the mean
FAIRNESS_WARM_REQUESTS = 20


def worker_counts(path: Path) -> list[int]:
    """Requests served so far by each worker slot (bench/counted.py); slot 0 is the slot counter itself."""
    data = path.read_bytes()
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def app_servers(
    wrk: str, env: dict[str, str], fixtures: dict[str, str], rounds: int, seconds: float, workdir: Path
) -> list[str]:
    """Every server of `APP_SERVERS` in every layout: req/s, p99, errors and each worker's share, per round. The
    servers of a layout run side by side and take turns, round after round, so a change in the machine's load
    falls on all of them alike."""
    auth = {"Authorization": f"Bearer {fixtures['token']}"}
    case = Case("fair workers", "/buyers?limit=20", auth)
    lines = [
        "| server | workers | connections | round | req/s | p50 ms | p99 ms | errors | per worker | furthest |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    worst: dict[str, float] = {}
    for workers, connections in FAIRNESS_LAYOUTS:
        servers = {}
        try:
            for index, name in enumerate(APP_SERVERS):
                counts_path = workdir / f"counts-{workers}-{index}.bin"
                counts_path.write_bytes(bytes(8 * 64))
                counted = {**env, "BENCH_WORKER_COUNTS": str(counts_path)}
                log = workdir / f"servers-{workers}-{index}.log"
                servers[name] = (start_server(counted, workers, log, server=name), counts_path)
            for server, counts_path in servers.values():
                _warm(wrk, server, case, workers, connections, counts_path, workdir)
            for round_number in range(rounds):
                names = list(servers)
                shift = round_number % len(names)
                for name in names[shift:] + names[:shift]:
                    server, counts_path = servers[name]
                    before = worker_counts(counts_path)
                    result = drive(wrk, server, case, seconds, connections, workdir)
                    after = worker_counts(counts_path)
                    served = [after[slot] - before[slot] for slot in range(1, workers + 1)]
                    mean = statistics.mean(served)
                    spread = max(abs(count - mean) for count in served) / mean if mean else 1.0
                    worst[name] = max(worst.get(name, 0.0), spread)
                    shares = " / ".join(f"{count:,}" for count in served)
                    lines.append(
                        f"| {name} | {workers} | {connections} | {round_number + 1} | {result.rps:,.0f} "
                        f"| {result.p50_ms:.2f} | {result.p99_ms:.2f} | {result.bad} | {shares} | {spread:.0%} |"
                    )
                    print(f"  {name} {workers}w/{connections}c round {round_number + 1}: {result.rps:,.0f} req/s,"
                          f" p99 {result.p99_ms:.1f} ms, {result.bad} errors, {shares} ({spread:.0%})")  # fmt: skip
        finally:
            for (process, _), _ in servers.values():
                stop_server(process)
    lines.append("")
    for name, spread in worst.items():
        verdict = "ok" if spread <= FAIRNESS_TOLERANCE else "MISSED"
        lines.append(
            f"- {name}: every worker within {FAIRNESS_TOLERANCE:.0%} of the mean? worst {spread:.0%}, {verdict}"
        )
    return lines


def _warm(
    wrk: str, server: tuple, case: Case, workers: int, connections: int, counts_path: Path, workdir: Path
) -> None:
    """Warm every worker (its first requests load code, caches and a connection) before counting; a server that
    leaves a worker idle may never warm it: then count anyway."""
    for _ in range(5):
        drive(wrk, server, case, 1, connections, workdir)
        served = worker_counts(counts_path)[1 : workers + 1]
        if min(served) >= FAIRNESS_WARM_REQUESTS:
            return

"""Fair workers: every gunicorn worker serves its share of the requests."""

import statistics
from pathlib import Path

from bench.cases import Case
from bench.load import drive, start_server, stop_server

# (workers, keep-alive connections): more connections than workers, and many more.
FAIRNESS_LAYOUTS = ((2, 8), (5, 64))
FAIRNESS_TOLERANCE = 0.25  # every worker serves within 25% of the mean
FAIRNESS_WARM_REQUESTS = 20


def worker_counts(path: Path) -> list[int]:
    """Requests served so far by each worker slot (bench/gunicorn.conf.py)."""
    import struct

    data = path.read_bytes()
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def fairness(
    wrk: str, env: dict[str, str], fixtures: dict[str, str], rounds: int, seconds: float, workdir: Path
) -> list[str]:
    """Drive `GET /buyers?limit=20` with more keep-alive connections than workers; count each worker's share."""
    auth = {"Authorization": f"Bearer {fixtures['token']}"}
    case = Case("fair workers", "/buyers?limit=20", auth)
    lines = [
        "| workers | connections | round | req/s | requests per worker | furthest from the mean |",
        "|---:|---:|---:|---:|---|---:|",
    ]
    worst = 0.0
    for workers, connections in FAIRNESS_LAYOUTS:
        counts_path = workdir / f"counts-{workers}.bin"
        counts_path.write_bytes(bytes(8 * 64))
        counted = {**env, "BENCH_WORKER_COUNTS": str(counts_path)}
        server = start_server(counted, workers, workdir / f"fair-{workers}.log")
        try:
            # Warm every worker (its first requests load code, caches and a database connection) before counting.
            for _ in range(10):
                drive(wrk, server, case, 1, connections, workdir)
                if min(worker_counts(counts_path)[1 : workers + 1]) >= FAIRNESS_WARM_REQUESTS:
                    break
            for round_number in range(rounds):
                before = worker_counts(counts_path)
                result = drive(wrk, server, case, seconds, connections, workdir)
                served = [after - was for after, was in zip(worker_counts(counts_path), before, strict=True)]
                served = [count for index, count in enumerate(served) if 1 <= index <= workers]
                mean = statistics.mean(served)
                spread = max(abs(count - mean) for count in served) / mean if mean else 1.0
                worst = max(worst, spread)
                shares = " / ".join(f"{count:,}" for count in served)
                lines.append(
                    f"| {workers} | {connections} | {round_number + 1} | {result.rps:,.0f} | {shares} | {spread:.0%} |"
                )
                print(f"  fair workers {workers}w/{connections}c round {round_number + 1}: {shares} ({spread:.0%})")
        finally:
            stop_server(server[0])
    verdict = "ok" if worst <= FAIRNESS_TOLERANCE else "MISSED"
    lines.append("")
    lines.append(f"- every worker within {FAIRNESS_TOLERANCE:.0%} of the mean, each round: worst {worst:.0%} {verdict}")
    return lines

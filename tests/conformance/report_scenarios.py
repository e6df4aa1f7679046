"""Scenarios of reports, their executions and the download URL."""

from __future__ import annotations

import uuid
from typing import Any

from reports.services.executions import report_execution_run
from tests.conformance.world import Scenario, World, _captured

REPORT = {
    "name": "Captures",
    "schedule": "once",
    "schedule_enabled": True,
    "spec": {
        "model": "transactions",
        "params": {"fields": ["id", "amount"], "filters": {"status": ["capture_succeeded"]}},
    },
}


def _report(world: World) -> dict[str, Any]:
    _captured(world)
    report: dict[str, Any] = world.post("/reports", REPORT).json()
    return report


def _ran(world: World) -> tuple[str, str]:
    report = _report(world)
    execution_id = report["latest_execution"]["id"]
    report_execution_run(execution_id=execution_id)
    return report["id"], execution_id


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    ("/reports", "POST", "created", lambda w: w.post("/reports", REPORT)),
    ("/reports", "POST", "invalid", lambda w: w.post("/reports", {**REPORT, "schedule": "hourly"})),
    (
        "/reports",
        "POST",
        "unsupported",
        lambda w: w.post("/reports", {**REPORT, "spec": {"model": "ai_insights", "params": {}}}),
    ),
    ("/reports", "GET", "page", lambda w: (_report(w), w.client.get("/reports"))[1]),
    ("/reports", "GET", "bad-filter", lambda w: w.client.get("/reports", {"schedule": "hourly"})),
    ("/reports/{report_id}", "GET", "found", lambda w: w.client.get(f"/reports/{_report(w)['id']}")),
    ("/reports/{report_id}", "GET", "missing", lambda w: w.client.get(f"/reports/{uuid.uuid4()}")),
    (
        "/reports/{report_id}",
        "PUT",
        "updated",
        lambda w: w.put(f"/reports/{_report(w)['id']}", {"name": "Renamed", "schedule_enabled": False}),
    ),
    (
        "/reports/{report_id}/executions",
        "GET",
        "page",
        lambda w: w.client.get(f"/reports/{_ran(w)[0]}/executions"),
    ),
    ("/report-executions", "GET", "page", lambda w: (_ran(w), w.client.get("/report-executions"))[1]),
    (
        "/report-executions/{report_execution_id}",
        "GET",
        "found",
        lambda w: w.client.get(f"/report-executions/{_ran(w)[1]}"),
    ),
    (
        "/report-executions/{report_execution_id}",
        "GET",
        "missing",
        lambda w: w.client.get(f"/report-executions/{uuid.uuid4()}"),
    ),
    (
        "/reports/{report_id}/executions/{report_execution_id}/url",
        "POST",
        "created",
        lambda w: w.post("/reports/{}/executions/{}/url".format(*_ran(w)), {"expires_in": 60}),
    ),
    (
        "/reports/{report_id}/executions/{report_execution_id}/url",
        "POST",
        "invalid",
        lambda w: w.post("/reports/{}/executions/{}/url".format(*_ran(w)), {"expires_in": 0}),
    ),
]

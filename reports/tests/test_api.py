"""The reports API through real authentication: create, list, get, update, executions, the signed download."""

import csv
import io
import unicodedata
import uuid
from datetime import timedelta
from urllib.parse import unquote

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from reports.models import ExecutionStatus, Report, ReportExecution
from reports.services.executions import report_execution_run
from reports.services.files import DownloadRefused, download_token_read
from reports.tests.factories import ReportFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

WRITE = ["reports.read", "reports.write"]


def _create(client, **body):
    payload = {
        "name": "Yesterday",
        "schedule": "once",
        "schedule_enabled": True,
        "spec": {"model": "transactions", "params": {"fields": ["id", "status", "amount"], "filters": {}}},
        **body,
    }
    return client.post("/reports", payload, format="json")


def _download(client, url):
    path = url.split("://", 1)[1].split("/", 1)[1]
    return client.get("/" + path)


def test_a_once_report_runs_and_its_csv_downloads_through_the_signed_url(api_client, merchant_account):
    paid = TransactionFactory(merchant_account=merchant_account, captured=True, amount=4200)
    client = api_client(scopes=WRITE)

    created = _create(client)
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["type"] == "report"
    assert body["spec"] == {"model": "transactions", "params": {"fields": ["id", "status", "amount"], "filters": None}}
    assert body["latest_execution"]["status"] == "pending"
    execution_id = body["latest_execution"]["id"]

    assert report_execution_run(execution_id=execution_id)
    execution = client.get(f"/report-executions/{execution_id}").json()
    assert execution["status"] == "succeeded"
    assert execution["report"]["id"] == body["id"]

    answer = client.post(f"/reports/{body['id']}/executions/{execution_id}/url", {"expires_in": 10}, format="json")
    assert answer.status_code == 200, answer.content
    downloaded = _download(APIClient(), answer.json()["url"])
    assert downloaded.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(downloaded.streaming_content).decode())))
    assert rows == [["id", "status", "amount"], [str(paid.pk), "capture_succeeded", "4200"]]


def test_list_get_update_and_executions_of_a_report(api_client, merchant_account):
    client = api_client(scopes=WRITE)
    report_id = _create(client).json()["id"]

    listed = client.get("/reports", {"schedule": "once", "name": "yester"}).json()
    assert [item["id"] for item in listed["items"]] == [report_id]
    assert client.get("/reports", {"schedule": "daily"}).json()["items"] == []

    updated = client.put(f"/reports/{report_id}", {"name": "Renamed", "schedule_enabled": False}, format="json")
    assert updated.status_code == 200
    assert (updated.json()["name"], updated.json()["schedule_enabled"]) == ("Renamed", False)

    executions = client.get(f"/reports/{report_id}/executions").json()
    assert len(executions["items"]) == 1
    assert client.get("/report-executions", {"status": "pending", "report_name": "renamed"}).json()["items"]


BAD_REPORTS = [
    ({"spec": {"model": "ai_insights", "params": {}}}, "/spec/model", "ai_insights"),
    ({"spec": {"model": "nonsense", "params": {}}}, "/spec/model", "nonsense"),
    ({"spec": {"model": "transactions", "params": {"fields": ["id", "pan"]}}}, "/spec/params/fields/1", "pan"),
    (
        {"spec": {"model": "transactions", "params": {"filters": {"colour": ["red"]}}}},
        "/spec/params/filters/colour",
        "colour",
    ),
    ({"spec": {"model": "transactions", "params": {"order": []}}}, "/spec/params/order", "order"),
    ({"spec": {"model": "transactions", "params": {"sort": "amount"}}}, "/spec/params/sort", "list"),
    (
        {"spec": {"model": "transactions", "params": {"sort": [{"field": "pan", "order": "asc"}]}}},
        "/spec/params/sort/0/field",
        "pan",
    ),
    (
        {"spec": {"model": "transactions", "params": {"sort": [{"field": "metadata", "order": "asc"}]}}},
        "/spec/params/sort/0/field",
        "metadata",
    ),
    (
        {"spec": {"model": "transactions", "params": {"sort": [{"field": "amount", "order": "up"}]}}},
        "/spec/params/sort/0/order",
        "up",
    ),
    (
        {"spec": {"model": "transactions", "params": {"sort": [{"field": "amount", "order": "asc", "nulls": "x"}]}}},
        "/spec/params/sort/0/nulls",
        "nulls",
    ),
    (
        {"spec": {"model": "transactions", "params": {"sort": [{"field": "amount"}, {"field": "amount"}]}}},
        "/spec/params/sort/1/field",
        "amount",
    ),
    (
        {"spec": {"model": "detailed_settlement", "params": {"sort": [{"field": "batch", "order": "asc"}]}}},
        "/spec/params/sort/0/field",
        "batch",
    ),
    (
        {"spec": {"model": "transactions", "params": {"filters": {"created_at": {"start": "yesterday"}}}}},
        "/spec/params/filters/created_at/start",
        "ISO 8601",
    ),
    (
        {"spec": {"model": "transactions", "params": {"filters": {"status": ["paid"]}}}},
        "/spec/params/filters/status",
        "paid",
    ),
    ({"schedule": "hourly"}, "/schedule", "hourly"),
    ({"schedule_timezone": "Mars/Olympus_Mons"}, "/schedule_timezone", "Mars/Olympus_Mons"),
    ({"schedule_timezone": "../../etc/passwd"}, "/schedule_timezone", "../../etc/passwd"),
]


@pytest.mark.parametrize(("change", "pointer", "named"), BAD_REPORTS, ids=[b[1] + ":" + b[2] for b in BAD_REPORTS])
def test_a_bad_report_is_a_400_naming_what_is_wrong(api_client, merchant_account, change, pointer, named):
    answer = _create(api_client(scopes=WRITE), **change)

    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert (body["type"], body["code"]) == ("error", "bad_request")
    assert [detail["pointer"] for detail in body["details"]] == [pointer]
    assert named in body["details"][0]["message"] or named in body["message"]
    assert not Report.objects.exists()
    assert not ReportExecution.objects.exists()


def test_another_accounts_report_and_execution_are_404(api_client, merchant_account, other_merchant_account):
    theirs = ReportFactory(merchant_account=other_merchant_account)
    execution = ReportExecution.objects.create(
        report=theirs, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
    )
    client = api_client(scopes=WRITE)

    for answer in (
        client.get(f"/reports/{theirs.pk}"),
        client.put(f"/reports/{theirs.pk}", {"name": "Mine"}, format="json"),
        client.get(f"/reports/{theirs.pk}/executions"),
        client.get(f"/report-executions/{execution.pk}"),
        client.post(f"/reports/{theirs.pk}/executions/{execution.pk}/url", {}, format="json"),
    ):
        assert answer.status_code == 404, answer.content
        assert answer.json()["code"] == "not_found"
    assert client.get("/report-executions").json()["items"] == []
    assert Report.objects.get(pk=theirs.pk).name != "Mine"


@pytest.mark.parametrize(
    ("scopes", "method", "path", "status"),
    [
        (["reports.read"], "post", "/reports", 403),
        (["transactions.read"], "get", "/reports", 403),
        (["reports.read"], "get", "/reports", 200),
        (["*.read"], "get", "/report-executions", 200),
        (["reports.write"], "get", "/report-executions", 403),
        (["buyers.read"], "get", "/reports", 403),
    ],
)
def test_scopes(api_client, merchant_account, scopes, method, path, status):
    answer = getattr(api_client(scopes=scopes), method)(path, {}, format="json")
    assert answer.status_code == status


def test_the_download_url_expires_and_refuses_tampering(api_client, merchant_account):
    TransactionFactory(merchant_account=merchant_account, captured=True)
    client = api_client(scopes=WRITE)
    report = _create(client).json()
    execution_id = report["latest_execution"]["id"]
    report_execution_run(execution_id=execution_id)
    issued_no_earlier_than = timezone.now()  # a slow machine must not move the test's clock past the token's
    url = client.post(f"/reports/{report['id']}/executions/{execution_id}/url", {"expires_in": 1}, format="json")
    url = url.json()["url"]
    anonymous = APIClient()

    tampered = _download(anonymous, url[:-2] + ("aa" if not url.endswith("aa") else "bb"))
    assert tampered.status_code == 403
    assert tampered.json()["details"][0]["pointer"] == "/token"

    token = url.rsplit("/", 1)[-1]
    assert download_token_read(token, now=issued_no_earlier_than + timedelta(seconds=59)) == execution_id
    with pytest.raises(DownloadRefused, match="expired"):
        download_token_read(token, now=timezone.now() + timedelta(minutes=1, seconds=1))


def test_no_url_for_an_execution_without_a_file(api_client, merchant_account):
    client = api_client(scopes=WRITE)
    report = _create(client).json()
    answer = client.post(
        f"/reports/{report['id']}/executions/{report['latest_execution']['id']}/url", {}, format="json"
    )
    assert answer.status_code == 409
    missing = client.post(f"/reports/{report['id']}/executions/{uuid.uuid4()}/url", {}, format="json")
    assert missing.status_code == 404


def test_execution_states(merchant_account):
    report = ReportFactory(merchant_account=merchant_account)
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
    )
    assert report_execution_run(execution_id=str(execution.pk))
    assert not report_execution_run(execution_id=str(execution.pk))  # done: nothing runs twice
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.SUCCEEDED
    assert execution.row_count == 0


def test_an_xlsx_report_downloads_as_a_workbook(api_client, merchant_account):
    from openpyxl import load_workbook

    paid = TransactionFactory(merchant_account=merchant_account, captured=True, amount=777)
    client = api_client(scopes=WRITE)
    report = _create(client, file_format="xlsx").json()
    execution_id = report["latest_execution"]["id"]
    report_execution_run(execution_id=execution_id)
    url = client.post(f"/reports/{report['id']}/executions/{execution_id}/url", {}, format="json").json()["url"]

    downloaded = _download(APIClient(), url)
    assert downloaded["Content-Type"].startswith("application/vnd.openxmlformats")
    sheet = load_workbook(io.BytesIO(b"".join(downloaded.streaming_content)), read_only=True).active
    assert [list(row) for row in sheet.iter_rows(values_only=True)] == [
        ["id", "status", "amount"],
        [str(paid.pk), "capture_succeeded", 777],
    ]


@pytest.mark.parametrize(
    ("name", "file_name"),
    [
        ("Q3 sales\u202ecod.exe", "Q3 salescod.exe"),
        ("\u2066pay\u2069outs\u200b\u200e", "payouts"),
        ("tab\there\x07 and\x1b[31m red", "tabhere and[31m red"),
        ("line\u2028break", "linebreak"),
        ("\u202e\u202d", "report"),
    ],
    ids=["right-to-left-override", "isolates-and-zero-width", "controls", "line-separator", "nothing-left"],
)
def test_the_download_file_name_holds_no_control_or_format_character(api_client, merchant_account, name, file_name):
    report = ReportFactory(merchant_account=merchant_account, name=name)
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
    )
    assert report_execution_run(execution_id=str(execution.pk))
    client = api_client(scopes=WRITE)

    answer = client.post(f"/reports/{report.pk}/executions/{execution.pk}/url", {}, format="json")
    downloaded = _download(APIClient(), answer.json()["url"])

    assert downloaded.status_code == 200
    disposition = unquote(downloaded["Content-Disposition"])
    assert f"{file_name}-{execution.reference_timestamp:%Y-%m-%d}.csv" in disposition
    assert not any(unicodedata.category(c)[0] == "C" or unicodedata.category(c) in ("Zl", "Zp") for c in disposition)

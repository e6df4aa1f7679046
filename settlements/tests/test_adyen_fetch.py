"""Adyen's REPORT_AVAILABLE: a signed notification naming a settlement details report keeps it and queues its
download; the job fetches the file with the service's report user key from the suite's stand-in report host
(settlements/tests/report_host.py says why a stand-in) and ingests it. A URL off Adyen's report hosts is never kept
nor fetched; a failed download stays pending with the reason, on the desk, and is tried again until it succeeds."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from Adyen.util import generate_notification_sig
from django.core.management import CommandError, call_command
from django_tasks_db.models import DBTaskResult

from paymentservices.processors import adyen
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory
from settlements.models import FetchStatus, LedgerEntry, ReportFetch, SettlementReportFile
from settlements.selectors import report_fetches_to_look_into
from settlements.sources import settlements_ingest
from settlements.sources.announced import settlements_report_fetch
from settlements.tests.conftest import PSP
from settlements.tests.report_host import report_host
from settlements.tests.test_adyen_report import report, settled_line

pytestmark = pytest.mark.django_db

HMAC = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
REPORT_KEY = "AQE_report_user_key_0123"
NAME = "settlement_detail_report_batch_7.csv"


@pytest.fixture
def host(settings):
    with report_host(REPORT_KEY) as running:
        override_processor(settings, "adyen", REPORT_BASE=running.url)
        yield running


def adyen_service(merchant_account, *, report_key: str | None = REPORT_KEY):
    fields = [
        {"key": "api_key", "value": "AQE_api_key_0123"},
        {"key": "merchant_account", "value": "TestMerchantECOM"},
        {"key": "hmac_key", "value": HMAC},
    ]
    if report_key:
        fields.append({"key": "report_api_key", "value": report_key})
    return PaymentServiceFactory(merchant_account=merchant_account, definition_id=ADYEN.id, fields=fields)


@pytest.fixture
def service(merchant_account):
    return adyen_service(merchant_account)


def announce(client, service, *, url: str, name: str = NAME, success: str = "true"):
    """Adyen's REPORT_AVAILABLE for `name` at `url`, signed with the service's HMAC key by Adyen's library."""
    item = {
        "eventCode": "REPORT_AVAILABLE",
        "success": success,
        "eventDate": "2026-03-03T02:00:00+01:00",
        "merchantAccountCode": "TestMerchantECOM",
        "merchantReference": "",
        "pspReference": name,
        "reason": url,
        "amount": {"value": 0, "currency": "EUR"},
    }
    item["additionalData"] = {"hmacSignature": generate_notification_sig(item, HMAC).decode()}
    payload = json.dumps({"live": "false", "notificationItems": [{"NotificationRequestItem": item}]})
    return client.post(
        f"/inbound/payment-services/{service.pk}/notifications", payload, content_type="application/json"
    )


def queued() -> list[list[str]]:
    return [row.args_kwargs["args"] for row in DBTaskResult.objects.order_by("enqueued_at")]


def test_an_announced_report_is_fetched_with_the_report_key_and_ingested(
    client, service, host, paid, django_capture_on_commit_callbacks
):
    host.files[NAME] = report(settled_line(PSP))

    with django_capture_on_commit_callbacks(execute=True):
        response = announce(client, service, url=host.file_url(NAME))

    assert response.status_code == 200
    fetch = ReportFetch.objects.get()
    assert (fetch.name, fetch.url, fetch.status) == (NAME, host.file_url(NAME), FetchStatus.PENDING)
    assert queued() == [[str(fetch.pk)]]
    result = settlements_report_fetch(fetch_id=fetch.pk)

    assert (result.entries, result.unmatched) == (1, 0)
    assert host.requests == [(f"/reports/download/MerchantAccount/TestMerchantECOM/{NAME}", REPORT_KEY)]
    fetch.refresh_from_db()
    assert (fetch.status, fetch.attempts, fetch.message) == (FetchStatus.FETCHED, 1, "")
    paid.refresh_from_db()
    assert (paid.settled, paid.settled_amount) == (True, 9762)
    assert LedgerEntry.objects.get().report.payment_service_id == service.pk
    assert settlements_report_fetch(fetch_id=fetch.pk) is None  # fetched once
    assert len(host.requests) == 1


def test_the_same_announcement_again_and_other_reports_add_nothing(
    client, service, host, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        announce(client, service, url=host.file_url(NAME))
        announce(client, service, url=host.file_url(NAME))
        announce(
            client,
            service,
            url=host.file_url("payments_accounting_report_2026_03_02.csv"),
            name="payments_accounting_report_2026_03_02.csv",
        )
        announce(
            client,
            service,
            url=host.file_url("settlement_detail_report_batch_8.csv"),
            name="settlement_detail_report_batch_8.csv",
            success="false",
        )

    assert list(ReportFetch.objects.values_list("name", flat=True)) == [NAME]
    assert len(queued()) == 1


@pytest.mark.parametrize(
    "url",
    [
        "https://reports.example.com/settlement_detail_report_batch_7.csv",
        "http://ca-test.adyen.com/reports/download/settlement_detail_report_batch_7.csv",
        "https://ca-test.adyen.com.example.com/settlement_detail_report_batch_7.csv",
        "https://user@ca-live.adyen.com/settlement_detail_report_batch_7.csv",
        "https://ca-test.adyen.com:8443/settlement_detail_report_batch_7.csv",
        "",
    ],
)
def test_a_url_off_adyens_report_hosts_is_neither_kept_nor_fetched(
    client, service, host, url, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = announce(client, service, url=url)

    assert response.status_code == 200  # Adyen's signed word: acknowledged, so it is not sent again and again
    fetch = ReportFetch.objects.get()
    assert (fetch.status, fetch.url) == (FetchStatus.REFUSED, "")
    assert "not on Adyen's report hosts" in fetch.message
    assert queued() == []
    assert list(report_fetches_to_look_into()) == [fetch]
    assert settlements_report_fetch(fetch_id=fetch.pk) is None
    assert host.requests == []


@pytest.mark.parametrize(
    "escape",
    [
        "/../../../../internal/secret.csv",
        "/%2e%2e/%2e%2e/%2E%2E/%2e%2E/internal/secret.csv",
        "/.%2e/.%2E/%2e./%2E./internal/secret.csv",
        "/./../../../../internal/secret.csv",
        "/%2e/settlement_detail_report_batch_7.csv",
        "%2f..%2f..%2finternal/secret.csv",
    ],
    ids=["dot-dot", "encoded", "half-encoded", "dot", "encoded-dot", "encoded-slash"],
)
def test_dot_segments_never_leave_the_configured_report_base(
    client, service, host, settings, escape, django_capture_on_commit_callbacks
):
    base = f"{host.url}/reports/download/MerchantAccount/TestMerchantECOM"
    override_processor(settings, "adyen", REPORT_BASE=base)
    host.files["secret.csv"] = b"internal"

    with django_capture_on_commit_callbacks(execute=True):
        announce(client, service, url=base + escape)

    fetch = ReportFetch.objects.get()
    assert (fetch.status, fetch.url) == (FetchStatus.REFUSED, "")
    assert settlements_report_fetch(fetch_id=fetch.pk) is None
    assert host.requests == []


def test_a_report_base_matches_by_parsed_path_not_by_text(settings):
    override_processor(settings, "adyen", REPORT_BASE="http://127.0.0.1:9/reports")
    assert adyen.report_url_allowed(f"http://127.0.0.1:9/reports/{NAME}")
    assert not adyen.report_url_allowed(f"http://127.0.0.1:9/reports-internal/{NAME}")
    assert not adyen.report_url_allowed(f"http://127.0.0.1:9/reports/../{NAME}")
    assert not adyen.report_url_allowed(f"http://user@127.0.0.1:9/reports/{NAME}")
    assert not adyen.report_url_allowed(f"https://127.0.0.1:9/reports/{NAME}")
    override_processor(settings, "adyen", REPORT_BASE="")
    assert not adyen.report_url_allowed(f"https://ca-test.adyen.com/reports/download/../../internal/{NAME}")
    assert not adyen.report_url_allowed(f"https://ca-test.adyen.com/reports/%2E%2e/internal/{NAME}")


def test_adyens_own_report_hosts_are_allowed(settings):
    override_processor(settings, "adyen", REPORT_BASE="")
    for host in ("ca-test.adyen.com", "ca-live.adyen.com"):
        assert adyen.report_url_allowed(f"https://{host}/reports/download/MerchantAccount/M/{NAME}")
    assert not adyen.report_url_allowed(f"https://checkout-test.adyen.com/{NAME}")


def test_a_failed_download_stays_pending_on_the_desk_and_is_tried_again(
    client, service, host, paid, support_client, django_capture_on_commit_callbacks
):
    host.files[NAME] = report(settled_line(PSP))
    host.failing_with = 503
    with django_capture_on_commit_callbacks(execute=True):
        announce(client, service, url=host.file_url(NAME))
    fetch = ReportFetch.objects.get()

    with django_capture_on_commit_callbacks(execute=True):
        assert settlements_report_fetch(fetch_id=fetch.pk) is None

    fetch.refresh_from_db()
    assert (fetch.status, fetch.attempts) == (FetchStatus.PENDING, 1)
    assert fetch.message == "Adyen's report host answered 503, not the report."
    retry = DBTaskResult.objects.order_by("-enqueued_at").first()
    assert retry.args_kwargs["args"] == [str(fetch.pk)]
    assert retry.run_after is not None
    assert not LedgerEntry.objects.exists()
    page = support_client.get("/admin/").content.decode()
    assert "Reports not fetched" in page
    assert f"{NAME} (1 attempts): Adyen&#x27;s report host answered 503" in page

    host.failing_with = None
    [result] = settlements_ingest(sources=["adyen-card"])["adyen-card"]  # the scheduled run tries it too
    assert result.entries == 1
    fetch.refresh_from_db()
    assert (fetch.status, fetch.attempts) == (FetchStatus.FETCHED, 2)
    assert list(report_fetches_to_look_into()) == []


def test_without_the_report_key_the_report_waits_and_says_what_to_set(
    client, merchant_account, host, django_capture_on_commit_callbacks
):
    service = adyen_service(merchant_account, report_key=None)
    with django_capture_on_commit_callbacks(execute=True):
        announce(client, service, url=host.file_url(NAME))

    settlements_report_fetch(fetch_id=ReportFetch.objects.get().pk)

    fetch = ReportFetch.objects.get()
    assert fetch.status == FetchStatus.PENDING
    assert "report_api_key" in fetch.message
    assert host.requests == []


def test_the_url_is_checked_again_before_it_is_used(
    client, service, host, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        announce(client, service, url=host.file_url(NAME))
    override_processor(settings, "adyen", REPORT_BASE="")  # the stand-in is no longer a report host

    settlements_report_fetch(fetch_id=ReportFetch.objects.get().pk)

    assert "not on Adyen's report hosts; nothing was sent" in ReportFetch.objects.get().message
    assert host.requests == []


def test_a_garbled_report_is_refused_whole_and_shown(client, service, host, paid, django_capture_on_commit_callbacks):
    host.files[NAME] = report(settled_line(PSP))[:-20]
    with django_capture_on_commit_callbacks(execute=True):
        announce(client, service, url=host.file_url(NAME))

    result = settlements_report_fetch(fetch_id=ReportFetch.objects.get().pk)

    assert result.outcome == "refused"
    assert not LedgerEntry.objects.exists()
    fetch = ReportFetch.objects.get()
    assert fetch.status == FetchStatus.FETCHED
    assert "Nothing from the file was recorded" in fetch.message


OTHER = "settlement_detail_report_batch_8.csv"


def _two_reports(client, service, other_service, host, garbled: bytes, capture) -> None:
    """A garbled report announced first for one account, a good one after it for another."""
    host.files[NAME] = garbled
    host.files[OTHER] = report(settled_line("OTHER00000000001", reference="theirs"))
    with capture(execute=False):  # the scheduled run fetches both, not the notifications' own tasks
        announce(client, service, url=host.file_url(NAME))
        announce(client, other_service, url=host.file_url(OTHER), name=OTHER)


def test_a_garbled_report_is_refused_on_the_desk_and_the_next_report_is_still_fetched(
    client, service, host, paid, other_merchant_account, support_client, django_capture_on_commit_callbacks
):
    other_service = adyen_service(other_merchant_account)
    garbled = report(settled_line(PSP, gross_credit="9" * 25))
    _two_reports(client, service, other_service, host, garbled, django_capture_on_commit_callbacks)
    err = StringIO()

    with pytest.raises(CommandError, match="1 settlement file"):
        call_command("ingest_settlements", "--source", "adyen-card", stdout=StringIO(), stderr=err)

    assert "Line 2 of the Adyen report: `Gross Credit (GC)`" in err.getvalue()
    assert LedgerEntry.objects.get().merchant_account == other_merchant_account
    assert set(ReportFetch.objects.values_list("status", flat=True)) == {FetchStatus.FETCHED}
    refused = SettlementReportFile.objects.get(status="refused")
    assert refused.name == NAME
    assert f"{NAME}: Line 2 of the Adyen report: `Gross Credit (GC)`" in support_client.get("/admin/").content.decode()


def test_a_report_that_breaks_its_ingestion_stops_no_other_and_the_command_says_so(
    client, service, host, paid, other_merchant_account, monkeypatch, django_capture_on_commit_callbacks
):
    from settlements.sources import announced as source

    other_service = adyen_service(other_merchant_account)
    _two_reports(client, service, other_service, host, report(settled_line(PSP)), django_capture_on_commit_callbacks)
    ingest = source.settlements_report_ingest

    def breaks_on_the_first(**kwargs):
        if kwargs["file_name"] == NAME:
            raise RuntimeError("a reader's bug")
        return ingest(**kwargs)

    monkeypatch.setattr(source, "settlements_report_ingest", breaks_on_the_first)
    err = StringIO()

    with pytest.raises(CommandError, match="1 settlement file"):
        call_command("ingest_settlements", "--source", "adyen-card", stdout=StringIO(), stderr=err)

    assert "could not be ingested (RuntimeError)" in err.getvalue()
    assert LedgerEntry.objects.get().merchant_account == other_merchant_account
    broken = ReportFetch.objects.get(name=NAME)
    assert (broken.status, broken.attempts) == (FetchStatus.PENDING, 1)
    assert "could not be ingested (RuntimeError)" in broken.message
    assert list(report_fetches_to_look_into()) == [broken]

    monkeypatch.setattr(source, "settlements_report_ingest", ingest)  # fixed: the next run ingests it
    call_command("ingest_settlements", "--source", "adyen-card", stdout=StringIO())
    assert LedgerEntry.objects.filter(transaction=paid).count() == 1


def test_a_source_that_fails_makes_the_command_fail(db, monkeypatch):
    import settlements.sources as source

    def down(**kwargs):
        raise RuntimeError("down")

    monkeypatch.setattr(source, "settlements_fetch_pending", down)
    err = StringIO()

    with pytest.raises(CommandError, match="1 settlement file"):
        call_command("ingest_settlements", "--source", "adyen-card", stdout=StringIO(), stderr=err)
    assert "The adyen-card source failed (RuntimeError)" in err.getvalue()

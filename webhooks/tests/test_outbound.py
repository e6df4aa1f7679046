"""The receiver address filter against every IPv6 spelling of an address it refuses: NAT64 (well-known and
local-use prefixes), 6to4, Teredo, IPv4-compatible, IPv4-mapped and SIIT forms, site-local and reserved
ranges; at create (the API's 400), at send (nothing leaves), and in development (metadata stays refused)."""

import pytest

from payments.tests.assertions import assert_error
from transactions.services.actions import transaction_void
from transactions.services.state import SYSTEM
from transactions.tests.factories import TransactionFactory
from webhooks import outbound
from webhooks.models import WebhookAttempt, WebhookSubscription
from webhooks.tests.conftest import run_tasks
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

# (address, why it is refused); every IPv4 address below is carried inside an IPv6 one.
METADATA = [
    ("64:ff9b::a9fe:a9fe", "NAT64 well-known prefix, metadata"),
    ("64:ff9b:1::a9fe:a9fe", "NAT64 local-use /96, metadata"),
    ("64:ff9b:1:a9fe:a9:fe00::", "NAT64 local-use /48, metadata"),
    ("64:ff9b:1:a9:fe:a9fe::", "NAT64 local-use /56, metadata"),
    ("64:ff9b:1:0:a9:fea9:fe00:0", "NAT64 local-use /64, metadata"),
    ("2002:a9fe:a9fe::", "6to4, metadata"),
    ("2002:a9fe:a9fe:1:2:3:4:5", "6to4 with a host part, metadata"),
    ("::169.254.169.254", "IPv4-compatible, metadata"),
    ("::ffff:169.254.169.254", "IPv4-mapped, metadata"),
    ("::ffff:0:a9fe:a9fe", "SIIT, metadata"),
    ("2001:0:a9fe:a9fe::1", "Teredo server, metadata"),
    ("2001:0:4136:e378:8000:63bf:5601:5601", "Teredo client, metadata (obfuscated)"),
    ("fe80::1", "IPv6 link-local"),
    ("fd00:ec2::254", "EC2's IPv6 metadata address"),
]
PRIVATE = [
    ("64:ff9b::7f00:1", "NAT64 well-known prefix, loopback"),
    ("64:ff9b::a00:1", "NAT64 well-known prefix, private"),
    ("64:ff9b::c0a8:101", "NAT64 well-known prefix, private"),
    ("64:ff9b::6440:1", "NAT64 well-known prefix, shared (100.64/10)"),
    ("64:ff9b::0:0", "NAT64 well-known prefix, unspecified"),
    ("64:ff9b:1::808:808", "NAT64 local-use prefix: not public whatever it carries"),
    ("64:ff9b:1::a00:1", "NAT64 local-use prefix, private"),
    ("2002:7f00:1::", "6to4, loopback"),
    ("2002:a00:1::", "6to4, private"),
    ("2002:c0a8:101::", "6to4, private"),
    ("::127.0.0.1", "IPv4-compatible, loopback"),
    ("::10.0.0.1", "IPv4-compatible, private"),
    ("::8.8.8.8", "IPv4-compatible: deprecated, never a receiver"),
    ("::ffff:127.0.0.1", "IPv4-mapped, loopback"),
    ("::ffff:10.0.0.1", "IPv4-mapped, private"),
    ("::ffff:0:7f00:1", "SIIT, loopback"),
    ("::ffff:0:a00:1", "SIIT, private"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo: not public"),
    ("fec0::1", "site-local"),
    ("fefe::1", "site-local, top of the range"),
    ("fc00::1", "unique local"),
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("100::1", "discard-only"),
    ("2001:db8::1", "documentation"),
    ("4000::1", "reserved by the IETF"),
]
PUBLIC = [
    ("64:ff9b::808:808", "NAT64 of a public address: what DNS64 answers for an IPv4-only receiver"),
    ("2002:808:808::1", "6to4 of a public address"),
    ("2001:4860:4860::8888", "a public IPv6 address"),
    ("::ffff:8.8.8.8", "IPv4-mapped public address"),
]


def _url(address: str) -> str:
    return f"https://[{address}]/hooks"


@pytest.fixture
def production(settings):
    settings.DEBUG = False
    settings.WEBHOOK_ALLOWED_HOSTS = []


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["webhook-subscriptions.read", "webhook-subscriptions.write"])


@pytest.mark.parametrize(("address", "form"), METADATA + PRIVATE, ids=[a for a, _ in METADATA + PRIVATE])
def test_production_refuses_every_form_at_create(production, client, address, form):
    response = client.post("/webhook-subscriptions", {"url": _url(address)}, format="json")

    assert_error(response, 400, "/url")
    assert not WebhookSubscription.objects.exists()


@pytest.mark.parametrize(("address", "form"), METADATA + PRIVATE, ids=[a for a, _ in METADATA + PRIVATE])
def test_production_sends_nothing_to_any_form(production, monkeypatch, address, form):
    connected = []
    monkeypatch.setattr(outbound._VettedBackend, "connect_tcp", lambda *args, **kwargs: connected.append(args))

    answer = outbound.post(_url(address), body=b"{}", headers={})

    assert answer.error.startswith("Not sent: ")
    assert answer.status_code is None
    assert connected == []


@pytest.mark.parametrize(("address", "form"), METADATA, ids=[a for a, _ in METADATA])
def test_development_still_refuses_every_form_of_the_metadata_address(settings, address, form):
    settings.DEBUG = True

    with pytest.raises(outbound.UnsafeUrl, match="link-local or cloud metadata"):
        outbound.url_check(_url(address).replace("https", "http"))


@pytest.mark.parametrize(("address", "form"), PUBLIC, ids=[a for a, _ in PUBLIC])
def test_production_accepts_forms_that_carry_a_public_address(production, address, form):
    assert outbound.url_check(_url(address)).addresses == (address,)


@pytest.mark.parametrize("address", ["64:ff9b::a9fe:a9fe", "2002:a00:1::", "::ffff:0:7f00:1", "fec0::1"])
def test_a_host_that_now_resolves_to_a_carried_internal_address_is_not_sent_to(
    production, monkeypatch, merchant_account, address
):
    monkeypatch.setattr(outbound, "resolve", lambda host, port: ["2001:4860:4860::8888"])
    subscription_for(merchant_account, "https://hooks.example/x")
    monkeypatch.setattr(outbound, "resolve", lambda host, port: [address])

    transaction_void(txn=TransactionFactory(merchant_account=merchant_account, authorized=True), actor=SYSTEM)
    run_tasks()

    errors = set(WebhookAttempt.objects.values_list("error", flat=True))
    assert len(errors) == 1
    assert errors.pop().startswith("Not sent: The host 'hooks.example' resolves to ")

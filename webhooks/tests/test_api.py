"""`/webhook-subscriptions`: upstream's operations and shapes, scopes, bad input, accounts, query counts."""

import uuid

import pytest

from payments.tests.assertions import assert_error
from payments.tests.reference import assert_matches_reference
from payments.vault import crypto
from webhooks.models import WebhookSubscription
from webhooks.services.subscriptions import webhook_subscription_password, webhook_subscription_secret
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hooks"  # allowed by the test settings; nothing is sent by these tests


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["webhook-subscriptions.read", "webhook-subscriptions.write"])


def test_create_answers_a_subscription_with_its_secret_and_seals_what_it_stores(client):
    response = client.post(
        "/webhook-subscriptions",
        {"url": URL, "authentication": {"kind": "basic", "username": "shop", "password": "s3cret-pass"}},
        format="json",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert_matches_reference(body, "WebhookSubscription")
    assert body["type"] == "webhook-subscription"
    assert body["merchant_account_id"] == "default"
    assert (body["url"], body["active"], body["rotating"], body["creator"]) == (URL, True, False, None)
    assert body["authentication"] == {
        "type": "webhook-authentication",
        "kind": "basic",
        "username": "shop",
        "password": "********",
    }
    assert len(body["secret"]) == 64
    stored = WebhookSubscription.objects.get(pk=body["id"])
    assert body["secret"] not in stored.secret_sealed
    assert "s3cret-pass" not in (stored.auth_password_sealed or "")
    assert webhook_subscription_secret(stored) == body["secret"]
    assert webhook_subscription_password(stored) == "s3cret-pass"
    # Sealed for this row and field only: the password's ciphertext does not open as the secret.
    with pytest.raises(crypto.VaultError):
        crypto.decrypt(stored.auth_password_sealed, context=f"webhooks.subscription:{stored.pk}:secret")


def test_get_list_update_and_delete(client, merchant_account):
    first = subscription_for(merchant_account, URL)
    second = subscription_for(merchant_account, URL + "/2", active=False)

    listed = client.get("/webhook-subscriptions").json()
    assert_matches_reference(listed, "WebhookSubscriptions")
    assert [item["id"] for item in listed["items"]] == [str(second.pk), str(first.pk)]
    assert (listed["limit"], listed["next_cursor"], listed["previous_cursor"]) == (20, None, None)

    one = client.get(f"/webhook-subscriptions/{first.pk}").json()
    assert_matches_reference(one, "WebhookSubscription")
    assert one["secret"] == webhook_subscription_secret(first)

    updated = client.put(
        f"/webhook-subscriptions/{first.pk}",
        {"active": False, "authentication": {"kind": "basic", "username": "u", "password": "p"}},
        format="json",
    )
    assert updated.status_code == 200
    assert (updated.json()["active"], updated.json()["url"]) == (False, URL)  # the url was not sent: unchanged
    assert updated.json()["authentication"]["username"] == "u"

    cleared = client.put(f"/webhook-subscriptions/{first.pk}", {"authentication": None, "url": None}, format="json")
    assert (cleared.json()["authentication"], cleared.json()["url"]) == (None, URL)

    deleted = client.delete(f"/webhook-subscriptions/{first.pk}")
    assert deleted.status_code == 204
    assert not WebhookSubscription.objects.filter(pk=first.pk).exists()
    assert client.get(f"/webhook-subscriptions/{first.pk}").status_code == 404


def test_rotate_secret_keeps_the_old_one_for_delta_minutes(client, merchant_account):
    subscription = subscription_for(merchant_account, URL)
    old = webhook_subscription_secret(subscription)

    rotated = client.post(f"/webhook-subscriptions/{subscription.pk}/rotate-secret", {"delta": 60}, format="json")

    assert rotated.status_code == 200
    assert_matches_reference(rotated.json(), "WebhookSubscription")
    assert rotated.json()["rotating"] is True
    assert rotated.json()["secret"] not in (old, None)
    subscription.refresh_from_db()
    assert subscription.previous_secret_sealed
    assert old not in subscription.previous_secret_sealed

    at_once = client.post(f"/webhook-subscriptions/{subscription.pk}/rotate-secret", {}, format="json")
    assert at_once.json()["rotating"] is False
    assert at_once.json()["secret"] != rotated.json()["secret"]


@pytest.mark.parametrize(
    ("method", "path_suffix", "payload", "pointer"),
    [
        ("post", "", {}, "/url"),
        ("post", "", {"url": 42}, "/url"),
        ("post", "", {"url": "ftp://127.0.0.1/x"}, "/url"),
        ("post", "", {"url": "not a url"}, "/url"),
        ("post", "", {"url": "http://user:pw@127.0.0.1/x"}, "/url"),
        ("post", "", {"url": "http://" + "a" * 2050}, "/url"),
        ("post", "", {"url": URL, "active": "yes"}, "/active"),
        ("post", "", {"url": URL, "authentication": "basic"}, "/authentication"),
        ("post", "", {"url": URL, "authentication": {"kind": "basic", "username": "u"}}, "/authentication/password"),
        ("post", "", {"url": URL, "authentication": {"kind": "digest"}}, "/authentication/kind"),
        (
            "post",
            "",
            {"url": URL, "authentication": {"kind": "oauth_client_credentials", "client_id": "a"}},
            "/authentication/kind",
        ),
        ("post", "", {"url": URL, "events": ["transaction.captured"]}, "/events"),
        ("put", "/{id}", {"url": "http://169.254.169.254/latest"}, "/url"),
        ("put", "/{id}", {"active": 1}, "/active"),
        ("put", "/{id}", {"secret": "mine"}, "/secret"),
        ("post", "/{id}/rotate-secret", {"delta": -1}, "/delta"),
        ("post", "/{id}/rotate-secret", {"delta": "60"}, "/delta"),
        ("post", "/{id}/rotate-secret", {"delta": 1.5}, "/delta"),
        ("post", "/{id}/rotate-secret", {"delta": 10**9}, "/delta"),
        ("post", "/{id}/rotate-secret", {"delta": 5, "secret": "mine"}, "/secret"),
    ],
    ids=[
        "url-missing",
        "url-not-string",
        "url-ftp",
        "url-garbage",
        "url-credentials",
        "url-too-long",
        "active-string",
        "authentication-string",
        "basic-without-password",
        "unknown-kind",
        "oauth-unsupported",
        "unknown-field",
        "update-metadata-address",
        "update-active-int",
        "update-unknown-field",
        "delta-negative",
        "delta-string",
        "delta-float",
        "delta-huge",
        "rotate-unknown-field",
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_changes_nothing(
    client, merchant_account, method, path_suffix, payload, pointer
):
    subscription = subscription_for(merchant_account, URL)
    before = list(WebhookSubscription.objects.values())

    response = getattr(client, method)(
        "/webhook-subscriptions" + path_suffix.format(id=subscription.pk), payload, format="json"
    )

    assert_error(response, 400, pointer)
    assert list(WebhookSubscription.objects.values()) == before


def test_production_refuses_loopback_metadata_and_private_receivers(client, settings, monkeypatch):
    settings.WEBHOOK_ALLOWED_HOSTS = []
    monkeypatch.setattr("webhooks.outbound.resolve", lambda host, port: ["10.0.0.1"])

    for url in ("http://127.0.0.1/hooks", "http://169.254.169.254/latest", "https://hooks.internal.example/x"):
        response = client.post("/webhook-subscriptions", {"url": url}, format="json")
        assert_error(response, 400, "/url")
    assert not WebhookSubscription.objects.exists()


_REQUESTS = [
    ("get", "/webhook-subscriptions", "read"),
    ("post", "/webhook-subscriptions", "write"),
    ("get", "/webhook-subscriptions/{id}", "read"),
    ("put", "/webhook-subscriptions/{id}", "write"),
    ("delete", "/webhook-subscriptions/{id}", "write"),
    ("post", "/webhook-subscriptions/{id}/rotate-secret", "write"),
]


@pytest.mark.parametrize(("method", "path", "needs"), _REQUESTS, ids=[f"{m}-{p}" for m, p, _ in _REQUESTS])
@pytest.mark.parametrize(
    "scopes",
    [
        ["webhook-subscriptions.read"],
        ["webhook-subscriptions.write"],
        ["*.read"],
        ["*.write"],
        ["transactions.read", "transactions.write"],
        ["embed"],
    ],
    ids=["read", "write", "any-read", "any-write", "other-resource", "embed"],
)
def test_scope_matrix(api_client, merchant_account, method, path, needs, scopes):
    subscription = subscription_for(merchant_account, URL)
    allowed = any(scope.endswith(needs) and scope.split(".")[0] in ("*", "webhook-subscriptions") for scope in scopes)

    payload = {"url": URL} if method == "post" and path.endswith("subscriptions") else {}
    response = getattr(api_client(scopes=scopes), method)(path.format(id=subscription.pk), payload, format="json")

    if allowed:
        assert response.status_code in (200, 201, 204), response.content
    else:
        assert_error(response, 403)


def test_missing_token_is_401(anonymous_client, merchant_account):
    assert_error(anonymous_client.get("/webhook-subscriptions"), 401)


def test_another_accounts_subscription_is_not_found(api_client, merchant_account, other_merchant_account):
    theirs = subscription_for(other_merchant_account, URL)
    client = api_client(scopes=["webhook-subscriptions.read", "webhook-subscriptions.write"])

    assert client.get("/webhook-subscriptions").json()["items"] == []
    for method, path, _ in _REQUESTS[2:]:
        assert_error(getattr(client, method)(path.format(id=theirs.pk), {}, format="json"), 404)
    assert_error(client.get(f"/webhook-subscriptions/{uuid.uuid4()}"), 404)
    assert_error(client.get("/webhook-subscriptions/not-a-uuid"), 404)
    assert WebhookSubscription.objects.get(pk=theirs.pk).active


def test_list_and_detail_cost_a_fixed_number_of_queries(client, merchant_account, django_assert_num_queries):
    subscription = subscription_for(merchant_account, URL)
    client.get("/webhook-subscriptions")  # warms the token and account caches
    for index in range(5):
        subscription_for(merchant_account, f"{URL}/{index}")

    with django_assert_num_queries(1):
        assert len(client.get("/webhook-subscriptions").json()["items"]) == 6
    with django_assert_num_queries(1):
        assert client.get(f"/webhook-subscriptions/{subscription.pk}").status_code == 200

"""CORS: only the origins a merchant account lists get headers, and only for that account's requests."""

import pytest

from checkout.tests.factories import CheckoutSessionFactory

pytestmark = pytest.mark.django_db

SHOP = "https://shop.example"
OTHER_SHOP = "https://other-shop.example"
EVIL = "https://evil.example"
ALLOW_ORIGIN = "access-control-allow-origin"


@pytest.fixture
def accounts(merchant_account, other_merchant_account):
    merchant_account.allowed_origins = [SHOP]
    merchant_account.save()
    other_merchant_account.allowed_origins = [OTHER_SHOP]
    other_merchant_account.save()
    return merchant_account, other_merchant_account


def preflight(client, path: str, origin: str, method: str = "PUT"):
    return client.options(
        path,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )


def fields_path(session) -> str:
    return f"/checkout/sessions/{session.id}/fields"


class TestSecureFields:
    @pytest.mark.parametrize(
        ("owner", "origin", "allowed"),
        [
            ("default", SHOP, True),
            ("default", OTHER_SHOP, False),
            ("default", EVIL, False),
            ("other", OTHER_SHOP, True),
            ("other", SHOP, False),
        ],
    )
    def test_the_sessions_own_account_decides(self, anonymous_client, accounts, owner, origin, allowed):
        account = {"default": accounts[0], "other": accounts[1]}[owner]
        session = CheckoutSessionFactory(merchant_account=account)
        # The header names another account: on this path only the session's account counts.
        response = anonymous_client.put(
            fields_path(session), data={}, format="json", HTTP_ORIGIN=origin, HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other"
        )
        assert response.status_code == 400
        assert response.get(ALLOW_ORIGIN) == (origin if allowed else None)

    def test_preflight_is_answered_for_the_sessions_origins_only(self, anonymous_client, accounts):
        session = CheckoutSessionFactory(merchant_account=accounts[0])
        allowed = preflight(anonymous_client, fields_path(session), SHOP)
        assert allowed.status_code == 200
        assert allowed[ALLOW_ORIGIN] == SHOP
        assert "PUT" in allowed["access-control-allow-methods"]
        assert "content-type" in allowed["access-control-allow-headers"]
        assert ALLOW_ORIGIN not in preflight(anonymous_client, fields_path(session), OTHER_SHOP)

    def test_missing_or_expired_session_gets_no_headers(self, anonymous_client, accounts):
        expired = CheckoutSessionFactory(merchant_account=accounts[0], expires_at="2000-01-01T00:00:00Z")
        for path in (fields_path(expired), "/checkout/sessions/4137b1cf-39ac-42a8-bad6-1c680d5dab6b/fields"):
            assert ALLOW_ORIGIN not in preflight(anonymous_client, path, SHOP)


class TestBearerEndpoints:
    def test_the_requests_merchant_account_decides(self, api_client, accounts):
        client = api_client(scopes=["checkout-sessions.write"])
        allowed = client.post("/checkout/sessions", HTTP_ORIGIN=SHOP)
        assert allowed.status_code == 201
        assert allowed[ALLOW_ORIGIN] == SHOP
        assert "retry-after" in allowed["access-control-expose-headers"]
        assert ALLOW_ORIGIN not in client.post("/checkout/sessions", HTTP_ORIGIN=OTHER_SHOP)

    def test_an_account_named_by_header_uses_its_own_origins(self, api_client, accounts):
        client = api_client(scopes=["checkout-sessions.write"], merchant_account_id="other")
        # This key cannot act for `other` (403), and the answer is readable only by `other`'s origins.
        assert client.post("/checkout/sessions", HTTP_ORIGIN=OTHER_SHOP)[ALLOW_ORIGIN] == OTHER_SHOP
        assert ALLOW_ORIGIN not in client.post("/checkout/sessions", HTTP_ORIGIN=SHOP)

    @pytest.mark.parametrize(
        ("origin", "allowed"), [(SHOP, True), (OTHER_SHOP, True), (EVIL, False)], ids=["shop", "other-shop", "evil"]
    )
    @pytest.mark.parametrize("path", ["/transactions", "/gift-cards/balances", "/checkout/sessions"])
    def test_preflight_without_the_account_header_accepts_any_accounts_origin(
        self, anonymous_client, accounts, path, origin, allowed
    ):
        response = preflight(anonymous_client, path, origin, method="POST")
        assert response.get(ALLOW_ORIGIN) == (origin if allowed else None)
        if allowed:
            headers = response["access-control-allow-headers"]
            assert all(name in headers for name in ("authorization", "idempotency-key", "content-type"))

    def test_configured_origins_are_compared_as_browsers_send_them(self, api_client, merchant_account):
        merchant_account.allowed_origins = ["HTTPS://Shop.Example/"]
        merchant_account.save()
        response = api_client(scopes=["checkout-sessions.write"]).post("/checkout/sessions", HTTP_ORIGIN=SHOP)
        assert response[ALLOW_ORIGIN] == SHOP

    def test_admin_is_never_shared(self, anonymous_client, accounts):
        assert ALLOW_ORIGIN not in anonymous_client.get("/admin/login/", HTTP_ORIGIN=SHOP)
        assert ALLOW_ORIGIN not in preflight(anonymous_client, "/admin/login/", SHOP, method="POST")

import pytest
from django.test import RequestFactory

from checkout import security


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://localhost:8000", "http://localhost:8000"),
        ("http://localhost:8000/", "http://localhost:8000"),
        ("HTTPS://Shop.Example.COM", "https://shop.example.com"),
        ("https://shop.example.com:443", "https://shop.example.com"),
        ("http://shop.example.com:80", "http://shop.example.com"),
        ("https://shop.example.com:8443", "https://shop.example.com:8443"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("http://[::1]:8000", "http://[::1]:8000"),
    ],
    ids=["port", "trailing-slash", "case", "default-https-port", "default-http-port", "other-port", "ipv4", "ipv6"],
)
def test_normalise_origin_accepts_origins(value, expected):
    assert security.normalise_origin(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        None,
        42,
        "",
        "null",
        "localhost:8000",
        "ftp://shop.example.com",
        "javascript:alert(1)",
        "https://shop.example.com/path",
        "https://shop.example.com/?q=1",
        "https://shop.example.com?",
        "https://shop.example.com#x",
        "https://user:pw@shop.example.com",
        "https://shop.example.com:99999",
        "https://shop example.com",
        "https://shop.example.com;script-src *",
        "https://'unsafe-inline'",
        "https://*.example.com",
        "https://" + "a" * 300 + ".com",
    ],
    ids=[
        "none",
        "number",
        "empty",
        "null-origin",
        "no-scheme",
        "ftp",
        "javascript",
        "path",
        "query",
        "empty-query",
        "fragment",
        "credentials",
        "bad-port",
        "space",
        "csp-injection",
        "csp-keyword",
        "wildcard",
        "too-long",
    ],
)
def test_normalise_origin_refuses_everything_else(value):
    assert security.normalise_origin(value) is None


def test_normalise_origins_keeps_valid_unique_origins_in_order():
    values = ["https://b.example", "not an origin", "https://A.example/", "https://b.example:443", 7]

    assert security.normalise_origins(values) == ["https://b.example", "https://a.example"]
    assert security.normalise_origins("https://a.example") == []


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("localhost:8000", "http://127.0.0.1:8000"),
        ("127.0.0.1:8000", "http://localhost:8000"),
        ("localhost", "http://127.0.0.1"),
        ("shop.example.com", "http://shop.example.com"),
    ],
    ids=["localhost", "loopback-ip", "no-port", "other-host-keeps-its-origin"],
)
def test_demo_api_origin_swaps_the_loopback_names(settings, host, expected):
    settings.SECURE_FIELDS_ORIGIN = ""
    settings.ALLOWED_HOSTS = ["*"]
    request = RequestFactory().get("/demo/checkout/", HTTP_HOST=host)

    assert security.demo_api_origin(request) == expected


def test_secure_fields_origin_setting_wins(settings):
    settings.SECURE_FIELDS_ORIGIN = "https://api.example.com"
    request = RequestFactory().get("/demo/checkout/", HTTP_HOST="localhost:8000")

    assert security.demo_api_origin(request) == "https://api.example.com"
    assert security.secure_fields_origin(request) == "https://api.example.com"


def test_frame_policy_allows_only_own_scripts_and_the_given_ancestors():
    policy = security.secure_field_frame_policy(nonce="abc", frame_ancestors=["https://a.example", "https://b.example"])

    directives = dict(part.split(" ", 1) for part in policy.split("; "))
    assert directives == {
        "default-src": "'none'",
        "script-src": "'self' 'nonce-abc'",
        "style-src": "'nonce-abc'",
        "connect-src": "'self'",
        "img-src": "'self' data:",
        "base-uri": "'none'",
        "form-action": "'none'",
        "frame-ancestors": "https://a.example https://b.example",
    }


def test_a_policy_never_has_an_empty_source_list():
    with pytest.raises(ValueError, match="frame-ancestors"):
        security.secure_field_frame_policy(nonce="abc", frame_ancestors=[])


def test_nonces_are_fresh_and_csp_safe():
    nonces = {security.new_nonce() for _ in range(50)}

    assert len(nonces) == 50
    assert all(len(nonce) >= 22 and nonce.replace("-", "").replace("_", "").isalnum() for nonce in nonces)

"""Every field of every payment service definition has one rule (`DefinitionField.rule`), and it holds wherever a
value is written or used: create, update and verify refuse a value that breaks it by name (400, `details[].pointer`
naming the field) and write nothing; a value that reached the database some other way is never sent anywhere.

The walk iterates the registry itself, so a definition added later is walked with the same hostile values.
"""

from __future__ import annotations

import pytest

from payments.tests.assertions import assert_error
from paymentservices.models import PaymentService
from paymentservices.processors import PROCESSORS
from paymentservices.processors.fields import OPAQUE_SECRET
from paymentservices.processors.seam import DefinitionField, Processor
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.routing import connector_for
from paymentservices.services import (
    CredentialsMalformed,
    _seal,
    payment_service_create,
    payment_service_credentials,
)

pytestmark = pytest.mark.django_db

FIELDS = [(definition, field) for definition in PROCESSORS for field in definition.fields]
FIELD_IDS = [f"{definition.id}:{field.key}" for definition, field in FIELDS]

# Values that would move a URL elsewhere if one were built from them: a path, user information, a host and port, a
# fragment, a bare address. Refused by every field but an opaque secret (a key sent only in a header to a checked host,
# whose processor documents no format: Adyen's API key, whose real values carry '#', '@', '/' and ':').
URL_SHAPED = {
    "path": "evil.com/",
    "userinfo-host-port-query": "x@127.0.0.1:{port}/?",
    "address": "127.0.0.1",
    "fragment": "a#",
    "dot-dot": "../x",
    "host-port": "localhost:6379",
}
# Values no field takes: a control character, whitespace, non-ASCII digits, too long.
NEVER = {
    "newline": "a\nb",
    "carriage-return": "a\rb",
    "nul": "a\x00b",
    "space": " ",
    "tab": "\t",
    "300-characters": "a" * 300,
    "arabic-indic-digits": "١٢٣",
}
# The field's own example, spoiled: a valid prefix never carries a bad tail.
SPOILED = {
    "example-then-newline": "{example}\n",
    "example-then-space": "{example} x",
    "example-then-arabic-digits": "{example}١٢٣",
    "example-over-its-bound": "{example}{padding}",
}
HOSTILE = {**URL_SHAPED, **NEVER, **SPOILED}


def _value(name: str, field: DefinitionField, port: int) -> str:
    padding = "0" * field.rule.max_length
    return HOSTILE[name].format(port=port, example=field.rule.example, padding=padding)


def _refused(field: DefinitionField, name: str) -> bool:
    return name not in URL_SHAPED or field.rule is not OPAQUE_SECRET


def _names(body: dict, field: DefinitionField, value: str) -> bool:
    """The refusal names the field (the pointer names where it is; DRF refuses a NUL itself, before any rule)."""
    return field.key in body["message"] or "\x00" in value


def _valid_fields(definition: Processor, *, everything: bool = False) -> list[dict[str, str]]:
    return [
        {"key": field.key, "value": field.rule.example} for field in definition.fields if field.required or everything
    ]


@pytest.fixture
def writer(api_client, merchant_account):
    return api_client(scopes=["payment-services.read", "payment-services.write", "transactions.write"])


@pytest.fixture
def nowhere(settings, listener):
    """Every processor call this test could make goes to the listener, which counts what arrives."""
    for processor_id in ("stripe", "adyen"):
        override_processor(settings, processor_id, API_BASE=f"http://127.0.0.1:{listener.port}", TIMEOUT_SECONDS=1)
    return listener


@pytest.mark.parametrize(("definition", "field"), FIELDS, ids=FIELD_IDS)
def test_each_rule_takes_its_own_example_and_is_ascii_and_bounded(definition, field):
    rule = field.rule
    assert rule.refusal(rule.example) is None
    assert rule.refusal(rule.example + "0" * rule.max_length) is not None
    assert 0 < rule.max_length <= 255
    if rule is OPAQUE_SECRET:
        assert field.secret, "only a secret sent in a header may be opaque"


def test_every_definition_field_has_a_rule_of_its_own_kind():
    """A field added without a rule gets the identifier rule, which takes no URL syntax."""
    assert {field.key for _, field in FIELDS} >= {"secret_key", "api_key", "live_url_prefix", "hmac_key"}
    assert DefinitionField("anything", "Anything", required=False, secret=False).rule.refusal("a/b") is not None


@pytest.mark.parametrize(("definition", "field"), FIELDS, ids=FIELD_IDS)
def test_a_hostile_value_is_refused_by_name_on_create_update_and_verify(
    writer, nowhere, merchant_account, definition, field
):
    service = _service(merchant_account, definition)
    before = PaymentService.objects.values().get(pk=service.pk)
    count = PaymentService.objects.count()
    others = [item for item in _valid_fields(definition) if item["key"] != field.key]
    for name in HOSTILE:
        value = _value(name, field, nowhere.port)
        fields = [*others, {"key": field.key, "value": value}]
        pointer = f"/fields/{len(fields) - 1}/value"
        verify = {"payment_service_definition_id": definition.id, "fields": fields}
        if not _refused(field, name):
            # An opaque secret takes URL syntax: it only ever travels in a header, to the processor's checked host
            # (here the listener: ADYEN_API_BASE / STRIPE_API_BASE as configured). Not stored: it is no real key.
            response = writer.post("/payment-services/verify", verify, format="json")
            assert response.status_code in (200, 502), (name, response.content)
            continue
        create = {
            "display_name": "Hostile",
            "payment_service_definition_id": definition.id,
            "fields": fields,
            "accepted_currencies": ["USD"],
            "accepted_countries": ["US"],
        }
        answers = {
            "create": (writer.post("/payment-services", create, format="json"), pointer),
            "update": (
                writer.put(f"/payment-services/{service.pk}", {"fields": [fields[-1]]}, format="json"),
                "/fields/0/value",
            ),
            "verify": (writer.post("/payment-services/verify", verify, format="json"), pointer),
        }
        for operation, (response, named) in answers.items():
            body = assert_error(response, 400, named, location="body")
            assert _names(body, field, value), (operation, name)
            assert len(value) < 5 or value not in response.content.decode(), (operation, name)  # never the value
        assert PaymentService.objects.count() == count, name
        assert PaymentService.objects.values().get(pk=service.pk) == before, name
    assert nowhere.connections == sum(1 for name in URL_SHAPED if not _refused(field, name))


@pytest.mark.parametrize(("definition", "field"), FIELDS, ids=FIELD_IDS)
def test_an_empty_value_is_refused_on_create_and_clears_only_an_optional_field_on_update(
    writer, merchant_account, definition, field
):
    payload = {
        "display_name": "Empty",
        "payment_service_definition_id": definition.id,
        "fields": [
            *(item for item in _valid_fields(definition) if item["key"] != field.key),
            {"key": field.key, "value": ""},
        ],
        "accepted_currencies": ["USD"],
        "accepted_countries": ["US"],
    }
    assert_error(
        writer.post("/payment-services", payload, format="json"), 400, f"/fields/{len(payload['fields']) - 1}/value"
    )
    service = _service(merchant_account, definition)

    response = writer.put(
        f"/payment-services/{service.pk}", {"fields": [{"key": field.key, "value": ""}]}, format="json"
    )

    if field.required:
        assert_error(response, 400, "/fields/0/value")
        assert payment_service_credentials(service=service)[field.key] == field.rule.example
    else:
        assert response.status_code == 200, response.content
        service.refresh_from_db()
        assert field.key not in payment_service_credentials(service=service)


def _service(merchant_account, definition: Processor) -> PaymentService:
    return payment_service_create(
        merchant_account=merchant_account,
        definition_id=definition.id,
        display_name=definition.display_name,
        fields=_valid_fields(definition, everything=True),
        accepted_currencies=["USD"],
        accepted_countries=["US"],
        position=1,
    )


def _plant(service: PaymentService, definition: Processor, key: str, value: str) -> None:
    """Write a value past the services, as a row stored before the fields had rules would hold it."""
    values = {**payment_service_credentials(service=service), key: value}
    _seal(service, definition, values)
    service.save(update_fields=["fields", "sealed_fields", "key_id"])


CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "03/30"}
# What pays with a service of each definition's method (routing goes by method).
PAYMENT_METHODS = {"paypal": {"method": "paypal", "redirect_url": "https://shop.example/return"}}


@pytest.mark.parametrize(("definition", "field"), FIELDS, ids=FIELD_IDS)
def test_a_stored_value_that_breaks_its_rule_is_never_used(writer, nowhere, merchant_account, definition, field):
    service = _service(merchant_account, definition)
    hostile = f"x@127.0.0.1:{nowhere.port}/?" if field.rule is not OPAQUE_SECRET else "a\nb"
    _plant(service, definition, field.key, hostile)

    with pytest.raises(CredentialsMalformed) as refused:
        connector_for(service)
    assert field.key in refused.value.message
    assert hostile not in refused.value.message

    paid = writer.post(
        "/transactions",
        {
            "amount": 1000,
            "currency": "USD",
            "payment_service_id": str(service.pk),
            "payment_method": PAYMENT_METHODS.get(definition.method, CARD),
        },
        format="json",
    )
    assert paid.status_code == 201, paid.content
    assert (paid.json()["status"], paid.json()["raw_response_code"]) == (
        "authorization_failed",
        "credentials_malformed",
    )
    assert nowhere.connections == 0

    # Updating another field keeps the bad value: refused, naming the fields; sending the field again mends it.
    other = next((item for item in definition.fields if item.key != field.key), None)
    if other is not None:
        update = {"fields": [{"key": other.key, "value": other.rule.example}]}
        body = assert_error(writer.put(f"/payment-services/{service.pk}", update, format="json"), 400, "/fields")
        assert field.key in body["message"]
    mend = {"fields": [{"key": field.key, "value": field.rule.example}]}
    assert writer.put(f"/payment-services/{service.pk}", mend, format="json").status_code == 200
    service.refresh_from_db()
    connector_for(service)

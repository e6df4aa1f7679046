"""One declaration per payment field: every field of `PaymentDetails` has its input, its column, and comes back
from the column as it was declared (so it reaches the connector unchanged)."""

from dataclasses import fields

from payments.connectors import BrowserInfo, PaymentDetails, PurchaseDetails, StatementDescriptor, ThreeDSecureData
from transactions.api.serializers.create import TransactionCreateInput
from transactions.details import PURCHASE_FIELDS, payment_details_columns, payment_details_stored
from transactions.models import Transaction
from transactions.tests.test_create_fields import BROWSER, DESCRIPTOR, PURCHASE, RECIPIENT, THREE_D_SECURE_V2

EVERY_FIELD = PaymentDetails(
    previous_scheme_transaction_id="123456789012345",
    previous_transaction_link_id="link-1",
    account_funding_transaction=True,
    allow_partial_authorization=True,
    installment_count=3,
    three_d_secure=ThreeDSecureData(**THREE_D_SECURE_V2),
    browser_info=BrowserInfo(**BROWSER),
    statement_descriptor=StatementDescriptor(**DESCRIPTOR),
    description="Two teas",
    purchase=PurchaseDetails(**PURCHASE),
    cart_items=[{"name": "Tea", "quantity": 2, "unit_amount": 500}],
    airline={"passenger_name_record": "ABC123"},
    recipient=RECIPIENT,
)


def test_every_field_has_a_value_in_the_example():
    defaults = PaymentDetails()
    assert [f.name for f in fields(PaymentDetails) if getattr(EVERY_FIELD, f.name) == getattr(defaults, f.name)] == []


def test_every_field_has_an_input():
    inputs = set(TransactionCreateInput().fields)
    names = {"three_d_secure": "three_d_secure_data"}

    for field in fields(PaymentDetails):
        expected = PURCHASE_FIELDS if field.name == "purchase" else (names.get(field.name, field.name),)
        assert set(expected) <= inputs, field.name


def test_every_field_is_stored_in_its_column_and_read_back_as_declared():
    columns = {f.name for f in Transaction._meta.get_fields()}

    stored = payment_details_columns(EVERY_FIELD)

    assert set(stored) <= columns
    assert payment_details_stored(Transaction(**stored)) == EVERY_FIELD

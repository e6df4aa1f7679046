"""How a transaction keeps the `PaymentDetails` its request declared, and reads them back for the processor.

Each field has the column of the same name: plain values as they are, the typed objects as JSON (3-D Secure data
as upstream's summary of it, whose `response_data` keeps the result whole), and the purchase (level 2/3) data one
column per field of `PurchaseDetails`. A new field of `PaymentDetails` needs only its column here.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from payments.connectors import (
    BrowserInfo,
    PaymentDetails,
    PurchaseDetails,
    StatementDescriptor,
    ThreeDSecureData,
)
from transactions.models import Transaction

PURCHASE_FIELDS = tuple(field.name for field in fields(PurchaseDetails))
# The JSON columns holding a typed object, and the type they are read back as.
_OBJECTS: dict[str, type[BrowserInfo] | type[StatementDescriptor]] = {
    "browser_info": BrowserInfo,
    "statement_descriptor": StatementDescriptor,
}


def three_d_secure_summary(data: ThreeDSecureData | None) -> dict[str, Any] | None:
    """Upstream's summary of the 3-D Secure result the client sent (this server runs no authentication itself);
    `response_data` keeps the result whole, so the connector can be given it again."""
    if data is None:
        return None
    return {
        "version": data.version,
        "status": str(data.status),
        "method": "challenge" if data.challenged else "frictionless",
        "response_data": {name: value for name, value in asdict(data).items() if value is not None},
        "error_data": None,
        "amount": None,
    }


def payment_details_columns(details: PaymentDetails) -> dict[str, Any]:
    """The transaction's columns for the `PaymentDetails` of `details`."""
    columns: dict[str, Any] = {}
    for field in fields(PaymentDetails):
        value = getattr(details, field.name)
        if field.name == "purchase":
            columns.update(asdict(value))
        elif field.name == "three_d_secure":
            columns["three_d_secure"] = three_d_secure_summary(value)
        elif field.name in _OBJECTS:
            columns[field.name] = asdict(value) if value is not None else None
        else:
            columns[field.name] = value
    return columns


def payment_details_stored(txn: Transaction) -> PaymentDetails:
    """The `PaymentDetails` the transaction was created with, as its columns keep them."""
    values: dict[str, Any] = {}
    for field in fields(PaymentDetails):
        if field.name == "purchase":
            values["purchase"] = PurchaseDetails(**{name: getattr(txn, name) for name in PURCHASE_FIELDS})
        elif field.name == "three_d_secure":
            result = (txn.three_d_secure or {}).get("response_data")
            values["three_d_secure"] = ThreeDSecureData(**result) if result else None
        elif field.name in _OBJECTS:
            stored = getattr(txn, field.name)
            values[field.name] = _OBJECTS[field.name](**stored) if stored else None
        else:
            values[field.name] = getattr(txn, field.name)
    return PaymentDetails(**values)

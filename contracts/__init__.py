"""The project's facts-only contracts of the published API documents it is compatible with or talks to.

`derive.py` makes each one from its document in ../shared/reference/ (never committed here); the files below are
what tests, mocks and later work read. docs/contracts.md says what a contract keeps and how the suite keeps them true.
"""

from pathlib import Path

DIRECTORY = Path(__file__).resolve().parent

GR4VY = DIRECTORY / "gr4vy" / "openapi-subset.json"
ADYEN_CHECKOUT = DIRECTORY / "adyen" / "checkout-v72.json"
ADYEN_WEBHOOKS = DIRECTORY / "adyen" / "webhooks-v1.json"
ADYEN_DISPUTES = DIRECTORY / "adyen" / "disputes-v30.json"
ADYEN_PAYOUT = DIRECTORY / "adyen" / "payout-v68.json"
PAYPAL_ORDERS = DIRECTORY / "paypal" / "checkout-orders-v2.json"
PAYPAL_PAYMENTS = DIRECTORY / "paypal" / "payments-v2.json"
PAYPAL_DISPUTES = DIRECTORY / "paypal" / "customer-disputes-v1.json"
PAYPAL_WEBHOOKS = DIRECTORY / "paypal" / "notifications-webhooks-v1.json"
PAYPAL_TRANSACTIONS = DIRECTORY / "paypal" / "reporting-transactions-v1.json"

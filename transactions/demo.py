"""Demo transactions for `seed_demo`: sandbox card payments through `transaction_create`, like the API's.

Each demo transaction's `external_identifier` is `demo-transaction-<n>`, so a rerun counts them and
carries on after the last one. Test card numbers give a realistic mix of approvals and declines
(docs/test-cards.md), and each payment is made for one of the account's demo buyers, when there are any.
"""

from datetime import date

from buyers.demo import demo_buyers
from buyers.models import Buyer
from payments.choices import PaymentIntent
from payments.models import MerchantAccount
from payments.ops.demo import DemoResult, DemoRun
from transactions.models import Transaction
from transactions.requests import CardRequest, TransactionRequest
from transactions.services import SYSTEM, transaction_create

EXTERNAL_IDENTIFIER_PREFIX = "demo-transaction-"
# Mostly approvals, some declines, as the sandbox connector decides them from the number alone.
_CARDS = ("4111111111111111", "5555555555554444", "4111111111111111", "4000000000000002", "4000000000009995")
_AMOUNTS = (499, 1299, 2500, 5999, 12000)
_BUYER_POOL = 1_000  # demo buyers the transactions are spread over


def demo_transactions(merchant_account: MerchantAccount):
    return Transaction.objects.filter(
        merchant_account=merchant_account, external_identifier__startswith=EXTERNAL_IDENTIFIER_PREFIX
    )


def seed_demo_transactions(run: DemoRun) -> DemoResult:
    """Bring the account's demo transactions up to `run.total`."""
    merchant_account = run.merchant_account
    before = demo_transactions(merchant_account).count()
    buyers = list(demo_buyers(merchant_account).order_by("external_identifier")[:_BUYER_POOL])
    for number in range(before + 1, run.total + 1):
        _create(merchant_account, number, buyers[number % len(buyers)] if buyers else None)
        if run.on_progress is not None:
            run.on_progress(number, run.total)
    return DemoResult(before=before, after=demo_transactions(merchant_account).count())


def _create(merchant_account: MerchantAccount, number: int, buyer: Buyer | None) -> Transaction:
    card = CardRequest(
        number=_CARDS[number % len(_CARDS)],
        expiration_month=12,
        expiration_year=date.today().year + 3,
        security_code="123",
    )
    request = TransactionRequest(
        amount=_AMOUNTS[number % len(_AMOUNTS)],
        currency="USD",
        country="US",
        intent=PaymentIntent.CAPTURE if number % 2 else PaymentIntent.AUTHORIZE,
        payment_method=card,
        buyer_id=buyer.pk if buyer is not None else None,
        external_identifier=f"{EXTERNAL_IDENTIFIER_PREFIX}{number:06d}",
    )
    return transaction_create(merchant_account=merchant_account, actor=SYSTEM, request=request)

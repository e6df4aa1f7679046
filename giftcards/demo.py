"""Demo gift cards for `seed_demo --gift-cards N`: issued by the program, secrets written to a private CSV."""

from giftcards.export import ExportError, issued_cards_export
from giftcards.models import IssuedGiftCard
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError
from payments.ops.demo import DemoResult, DemoRun

DEMO_BALANCE = 10_000  # minor units
DEMO_CURRENCY = "USD"


def issued_cards_of(merchant_account: MerchantAccount) -> int:
    return IssuedGiftCard.objects.filter(service__merchant_account=merchant_account).count()


def seed_demo_gift_cards(run: DemoRun) -> DemoResult:
    """Issue cards until the account's program has `run.total`; their numbers and PINs go to a new CSV."""
    before = issued_cards_of(run.merchant_account)
    note = ""
    if before < run.total:
        if run.secrets_path is None:
            raise ValueError("Demo gift cards need a file for their numbers and PINs.")
        out = run.secrets_path
        if out.exists():  # each run's secrets go to a file of their own; never overwrite one
            out = out.with_name(f"{out.stem}-from-{before + 1}{out.suffix}")
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            issued_cards_export(
                out,
                merchant_account=run.merchant_account,
                count=run.total - before,
                amount=DEMO_BALANCE,
                currency=DEMO_CURRENCY,
            )
        except ExportError as exc:
            raise DomainError(exc.message) from exc
        note = f"Numbers and PINs: {out}."
    return DemoResult(before=before, after=issued_cards_of(run.merchant_account), note=note)

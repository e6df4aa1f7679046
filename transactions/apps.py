from django.apps import AppConfig


class TransactionsConfig(AppConfig):
    """Transactions: authorizations, captures, voids, refunds and gift card redemptions."""

    name = "transactions"

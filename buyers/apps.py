from django.apps import AppConfig


class BuyersConfig(AppConfig):
    """Buyers: the merchant's customers, referenced by gift cards, sessions and transactions."""

    name = "buyers"

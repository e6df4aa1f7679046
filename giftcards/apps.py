from django.apps import AppConfig


class GiftCardsConfig(AppConfig):
    """The built-in gift card program, stored gift cards and balance checks."""

    name = "giftcards"
    verbose_name = "Gift cards"

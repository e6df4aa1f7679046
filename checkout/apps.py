from django.apps import AppConfig


class CheckoutConfig(AppConfig):
    """Checkout sessions, the Secure Fields endpoint and the Embed and Secure Fields frontend assets."""

    name = "checkout"

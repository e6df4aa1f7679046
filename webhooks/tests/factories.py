"""Subscriptions are made through the service (it seals the secret and checks the URL), not a model factory."""

from webhooks.services.subscriptions import webhook_subscription_create


def subscription_for(merchant_account, url: str, **kwargs):
    return webhook_subscription_create(merchant_account=merchant_account, url=url, **kwargs)

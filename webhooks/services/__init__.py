"""Every write of the webhooks app: subscriptions (subscriptions.py) and deliveries (deliveries.py)."""

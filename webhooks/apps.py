from payments.staff import config


class WebhooksConfig(config.StaffAppConfig):
    """Webhook subscriptions and the delivery of outbox events to them."""

    name = "webhooks"
    operator_permissions = ("resend_webhookdelivery",)

    def ready(self) -> None:
        from payments import outbox
        from webhooks.consumer import WebhookConsumer

        outbox.register_consumer("webhooks", WebhookConsumer())

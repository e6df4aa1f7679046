from payments.staff import config


class WebhooksConfig(config.StaffAppConfig):
    """Webhook subscriptions and the delivery of outbox events to them."""

    name = "webhooks"
    desk_position = 90
    operator_permissions = ("resend_webhookdelivery",)

    def ready(self) -> None:
        from payments import outbox
        from payments.audit.services import audit_register_resource
        from webhooks.consumer import WebhookConsumer, webhook_activity_about

        audit_register_resource(self.get_model("WebhookSubscription"), "webhook-subscription")
        outbox.register_consumer("webhooks", WebhookConsumer())
        outbox.register_activity("webhooks", webhook_activity_about)

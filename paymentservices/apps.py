from payments.staff import config


class PaymentServicesConfig(config.StaffAppConfig):
    """Payment services: the processors configured for each merchant account, their connectors and the routing."""

    name = "paymentservices"
    desk_position = 80
    verbose_name = "Payment services"
    # Operators order an account's services and switch them on or off (through the services, logged).
    operator_permissions = ("change_paymentservice",)

    def ready(self) -> None:
        from payments.audit.services import audit_register_resource
        from payments.staff.site import register_panel
        from payments.vault import rotation
        from paymentservices import checks, notifications, pivots, signals
        from paymentservices.desk import unmatched_notifications_panel
        from paymentservices.services import (
            payment_service_credentials_count_stale,
            payment_service_credentials_rotate_batch,
        )
        from paymentservices.tokens import payment_service_token_revoke_notified

        audit_register_resource(self.get_model("PaymentService"), "payment-service")
        audit_register_resource(self.get_model("PaymentServiceToken"), "payment-service-token")
        signals.connect()
        pivots.register()
        notifications.register(payment_service_token_revoke_notified)
        register_panel("notifications", unmatched_notifications_panel)
        checks.register()
        rotation.register(
            "payment-service-credentials",
            payment_service_credentials_rotate_batch,
            payment_service_credentials_count_stale,
        )

from payments.staff import config


class PaymentMethodsConfig(config.StaffAppConfig):
    """Stored payment methods: a buyer's cards kept in the vault for later payments."""

    name = "paymentmethods"
    desk_position = 40
    verbose_name = "Stored payment methods"
    # Operators may delete a stored card from the admin (through the service, logged); Support only views.
    operator_permissions = ("delete_paymentmethod",)

    def ready(self) -> None:
        from checkout import stored_methods
        from paymentmethods import notifications, pivots, signals
        from paymentmethods.api.targets import payment_method_target
        from paymentmethods.desk import find_payment_methods
        from paymentmethods.selectors import payment_method_card_for_session
        from payments import outbox
        from payments.audit.services import audit_register_resource
        from payments.staff.search import register_finder

        audit_register_resource(self.get_model("PaymentMethod"), "payment-method")
        signals.connect()
        pivots.register()
        register_finder("paymentmethods", find_payment_methods)
        outbox.register_target(notifications.PAYMENT_METHOD_TARGET, payment_method_target)
        # Secure Fields' stored-method form puts one of the account's methods on a checkout session.
        stored_methods.register(payment_method_card_for_session)

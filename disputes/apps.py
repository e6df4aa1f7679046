from payments.staff import config


class DisputesConfig(config.StaffAppConfig):
    """Disputes: what processors tell of buyers' challenges at the bank, and what they did to the payment."""

    name = "disputes"
    desk_position = 30
    # Accepting or defending a dispute speaks for the merchant to the bank: the Payments operator role may.
    operator_permissions = ("answer_dispute",)

    def ready(self) -> None:
        from disputes import pivots
        from disputes.services import dispute_apply_processor_event
        from payments.audit.services import audit_register_resource
        from paymentservices import notifications

        notifications.register(dispute_apply_processor_event)
        pivots.register()
        # Every answer is in the audit log, whether the API or the desk gave it.
        audit_register_resource(self.get_model("DisputeAnswer"), "dispute-answer")

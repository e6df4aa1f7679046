from payments.staff import config


class PayoutsConfig(config.StaffAppConfig):
    """Payouts: money sent to cards through a payment service whose processor can pay out."""

    name = "payouts"
    verbose_name = "Payouts"
    # Operators may make a payout from the desk (through the service, audited); Support only views.
    operator_permissions = ("pay_out",)

    def ready(self) -> None:
        from payments import outbox
        from payments.audit.services import audit_register_resource
        from payments.staff.account_settings import account_setting_register
        from paymentservices import notifications
        from payouts.admin import PAYOUT_LIMIT_SETTING
        from payouts.api.targets import payout_target
        from payouts.services import PAYOUT_TARGET, payout_notified

        audit_register_resource(self.get_model("Payout"), "payout")
        # What a processor's notification says became of a payout (Adyen's PAYOUT_* events).
        notifications.register(payout_notified)
        outbox.register_target(PAYOUT_TARGET, payout_target)
        # The account's own payout limit, set on its desk page (docs/payouts.md, "Limits").
        account_setting_register(PAYOUT_LIMIT_SETTING)

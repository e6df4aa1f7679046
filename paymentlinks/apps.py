from payments.staff import config


class PaymentLinksConfig(config.StaffAppConfig):
    """Payment links: orders sent to buyers by any channel, paid once on this server's page."""

    name = "paymentlinks"
    verbose_name = "Payment links"

    def ready(self) -> None:
        from paymentlinks.api.targets import payment_link_target
        from paymentlinks.embed import LINK_CLAIM
        from paymentlinks.services import PAYMENT_LINK_TARGET, payment_link_pay_pinned, payment_link_payment_ended
        from payments import outbox
        from payments.audit.services import audit_register_resource
        from transactions.pinned_orders import register_pinned_order

        audit_register_resource(self.get_model("PaymentLink"), "payment-link")
        outbox.register_target(PAYMENT_LINK_TARGET, payment_link_target)
        # The page's tokens pin their link: `POST /transactions` with one pays the link, once; a payment that ends
        # after a 3-D Secure challenge completes the link as it ends.
        register_pinned_order(LINK_CLAIM, payment_link_pay_pinned, ended=payment_link_payment_ended)

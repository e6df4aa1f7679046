from payments.staff import config


class CheckoutConfig(config.StaffAppConfig):
    """Checkout sessions, the Secure Fields endpoint and the Embed and Secure Fields frontend assets."""

    name = "checkout"
    desk_position = 60

    def ready(self) -> None:
        from checkout.selectors import checkout_session_merchant_account
        from checkout.services import checkout_sessions_purge_expired
        from payments.audit.services import audit_register_resource
        from payments.middleware import cors
        from payments.ops import purge

        audit_register_resource(self.get_model("CheckoutSession"), "checkout-session")
        purge.register("checkout-sessions", checkout_sessions_purge_expired)
        # Secure Fields is called from merchants' pages: the origins of the session's own account apply.
        cors.register_account_resolver(
            r"/checkout/sessions/(?P<session_id>[^/]+)/fields",
            lambda request, match: checkout_session_merchant_account(id=match["session_id"]),
        )

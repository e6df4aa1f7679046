from payments.staff import config


class TransactionsConfig(config.StaffAppConfig):
    """Transactions, captures, voids, refunds and gift card redemptions."""

    name = "transactions"
    desk_position = 10
    operator_permissions = ("operate_transaction",)

    def ready(self) -> None:
        from payments import outbox
        from payments.audit.services import audit_register_resource
        from payments.ops import demo
        from payments.rest import idempotency
        from payments.staff.search import register_finder
        from payments.staff.site import register_panel
        from payments.vault import rotation
        from paymentservices import notifications as processor_notifications
        from transactions import notifications, pivots
        from transactions.api.replays import APPROVAL_URL
        from transactions.api.targets import refund_target, transaction_target
        from transactions.dashboard import trends_panel
        from transactions.demo import seed_demo_transactions
        from transactions.desk import find_transactions
        from transactions.models import Transaction
        from transactions.services.approval_tokens import approval_tokens_count_stale, approval_tokens_rotate_batch
        from transactions.services.inbound import transaction_apply_processor_event

        audit_register_resource(self.get_model("Refund"), "refund")
        audit_register_resource(self.get_model("Transaction"), "transaction")
        pivots.register()
        register_finder("transactions", find_transactions)
        # A capture, cancel or refund made at a processor itself reaches its transaction (docs/payment-services.md).
        processor_notifications.register(transaction_apply_processor_event)
        register_panel("transactions", trends_panel)
        outbox.register_target(notifications.TRANSACTION_TARGET, transaction_target)
        outbox.register_target(notifications.REFUND_TARGET, refund_target)
        rotation.register("three-d-secure-challenge", approval_tokens_rotate_batch, approval_tokens_count_stale)
        # A replayed answer's challenge page is made from the transaction's state, not stored (docs/three-d-secure.md).
        idempotency.register_live_field("transaction", APPROVAL_URL)

        demo.register(
            demo.DemoSeeder(
                name="transactions",
                help="Total demo transactions the account should have.",
                seed=seed_demo_transactions,
                has_data=lambda account: Transaction.objects.filter(merchant_account=account).exists(),
            )
        )

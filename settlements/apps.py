from payments.staff import config


class SettlementsConfig(config.StaffAppConfig):
    """The settlement ledger: what processors paid out for each payment, net of which fees."""

    name = "settlements"
    desk_position = 70

    def ready(self) -> None:
        from payments.ops import demo
        from payments.staff.site import register_panel
        from paymentservices import notifications
        from paymentservices.definitions import settlement_reports_register
        from payouts.services import payout_succeeded_register
        from settlements.demo import demo_ledger_entries, seed_demo_settlements
        from settlements.desk import unmatched_entries_panel
        from settlements.services import ledger_payout_record
        from settlements.sources import settlement_definition_ids
        from settlements.sources.announced import settlements_report_announced

        register_panel("settlements", unmatched_entries_panel)
        # A payout to a card is money out of the merchant's balance: a ledger line as it succeeds, once.
        payout_succeeded_register(ledger_payout_record)
        # A payment service's `settlement_reporting_enabled` is taken where a source fetches its processor's reports.
        settlement_reports_register(*settlement_definition_ids())
        # A notification may announce a settlement report to fetch (the seam's AvailableReport, e.g. Adyen's
        # REPORT_AVAILABLE): its processor says whether it is one (settlements/sources/announced.py).
        notifications.register(settlements_report_announced)
        demo.register(
            demo.DemoSeeder(
                name="settlements",
                help="Total demo transactions the sandbox should have settled (its captures of closed days, oldest "
                "first; after --transactions).",
                seed=seed_demo_settlements,
                has_data=lambda account: demo_ledger_entries(account).exists(),
            )
        )

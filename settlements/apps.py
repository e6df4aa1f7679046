from payments.staff import config


class SettlementsConfig(config.StaffAppConfig):
    """The settlement ledger: what processors paid out for each payment, net of which fees."""

    name = "settlements"

    def ready(self) -> None:
        from payments.ops import demo
        from payments.staff.site import register_panel
        from paymentservices import notifications
        from settlements.demo import demo_ledger_entries, seed_demo_settlements
        from settlements.desk import unmatched_entries_panel
        from settlements.sources.adyen import settlements_adyen_report_announced

        register_panel("settlements", unmatched_entries_panel)
        # Adyen's REPORT_AVAILABLE names a settlement report to fetch (settlements/sources/adyen.py).
        notifications.register(settlements_adyen_report_announced)
        demo.register(
            demo.DemoSeeder(
                name="settlements",
                help="Total demo transactions the sandbox should have settled (its captures of closed days, oldest "
                "first; after --transactions).",
                seed=seed_demo_settlements,
                has_data=lambda account: demo_ledger_entries(account).exists(),
            )
        )

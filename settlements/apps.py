from payments.staff import config


class SettlementsConfig(config.StaffAppConfig):
    """The settlement ledger: what processors paid out for each payment, net of which fees."""

    name = "settlements"

    def ready(self) -> None:
        from payments.staff.site import register_panel
        from settlements.desk import unmatched_entries_panel

        register_panel("settlements", unmatched_entries_panel)

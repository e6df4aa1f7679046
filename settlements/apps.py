from payments.staff import config


class SettlementsConfig(config.StaffAppConfig):
    """The settlement ledger: what processors paid out for each payment, net of which fees."""

    name = "settlements"

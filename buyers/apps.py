from payments.staff import config


class BuyersConfig(config.StaffAppConfig):
    """Buyers: the merchant's customers, referenced by gift cards, sessions and transactions."""

    name = "buyers"
    desk_position = 20

    def ready(self) -> None:
        from buyers import pivots
        from buyers.demo import seed_demo_buyers_run
        from buyers.desk import find_buyers
        from buyers.models import Buyer
        from payments.audit.services import audit_register_resource
        from payments.ops import demo
        from payments.staff.search import register_finder

        audit_register_resource(self.get_model("Buyer"), "buyer")
        audit_register_resource(self.get_model("ShippingDetails"), "shipping-details")
        pivots.register()
        register_finder("buyers", find_buyers)
        demo.register(
            demo.DemoSeeder(
                name="buyers",
                help="Total demo buyers the account should have.",
                seed=seed_demo_buyers_run,
                has_data=lambda account: Buyer.objects.filter(merchant_account=account).exists(),
                local_total=50,  # so the first list call on a development server shows something
            )
        )

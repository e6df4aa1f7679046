from payments.staff import config


class GiftCardsConfig(config.StaffAppConfig):
    """The built-in gift card program, stored gift cards and balance checks."""

    name = "giftcards"
    desk_position = 50
    verbose_name = "Gift cards"
    operator_permissions = ("deactivate_issuedgiftcard",)

    def ready(self) -> None:
        from giftcards import pivots
        from giftcards.api.targets import gift_card_balance_target
        from giftcards.demo import seed_demo_gift_cards
        from giftcards.issuances import (
            ISSUANCE_URL,
            gift_card_issuances_count_stale,
            gift_card_issuances_purge_expired,
            gift_card_issuances_rotate_batch,
        )
        from giftcards.models import IssuedGiftCard
        from giftcards.services import BALANCE_TARGET
        from payments import outbox
        from payments.audit.services import audit_register_resource
        from payments.ops import demo, purge
        from payments.rest import idempotency
        from payments.vault import rotation

        audit_register_resource(self.get_model("GiftCard"), "gift-card")
        # An activation changes the program's card (not a stored one): named apart, so the desk links the right page.
        audit_register_resource(self.get_model("IssuedGiftCard"), "issued-gift-card")
        audit_register_resource(self.get_model("GiftCardIssuance"), "gift-card-issuance")
        purge.register("gift-card-issuances", gift_card_issuances_purge_expired)
        idempotency.register_live_field("gift-card-issuance", ISSUANCE_URL)
        rotation.register("gift-card-issuances", gift_card_issuances_rotate_batch, gift_card_issuances_count_stale)
        pivots.register()
        outbox.register_target(BALANCE_TARGET, gift_card_balance_target)

        demo.register(
            demo.DemoSeeder(
                name="gift_cards",
                help="Total cards the account's gift card program should have.",
                seed=seed_demo_gift_cards,
                has_data=lambda account: IssuedGiftCard.objects.filter(service__merchant_account=account).exists(),
                writes_secrets=True,
            )
        )

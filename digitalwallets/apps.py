from payments.staff import config


class DigitalWalletsConfig(config.StaffAppConfig):
    """Digital wallets: a merchant account's Apple Pay and Google Pay registrations and the key pairs made for them."""

    name = "digitalwallets"
    verbose_name = "Digital wallets"

    def ready(self) -> None:
        from digitalwallets.services import wallet_keys_count_stale, wallet_keys_rotate_batch
        from payments.audit.services import audit_register_resource
        from payments.vault import rotation

        audit_register_resource(self.get_model("DigitalWallet"), "digital-wallet")
        rotation.register("digital-wallet-keys", wallet_keys_rotate_batch, wallet_keys_count_stale)

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class PaymentsConfig(AppConfig):
    """Cross-cutting API plumbing: merchant accounts, API keys, authentication and shared contracts."""

    name = "payments"
    verbose_name = "Payments platform"

    def ready(self) -> None:
        from payments import checks  # noqa: F401 - registers the system checks

        post_migrate.connect(_sync_roles, dispatch_uid="payments.roles")
        _register_card_vault()
        _register_idempotency()


def _register_card_vault() -> None:
    from payments import cors, purge  # noqa: F401 - cors connects the CORS origin check
    from payments.vault_services import vaulted_cards_purge_expired, vaulted_security_codes_purge_expired

    purge.register("vaulted-cards", vaulted_cards_purge_expired)
    purge.register("vaulted-security-codes", vaulted_security_codes_purge_expired)


def _register_idempotency() -> None:
    from payments import purge
    from payments.idempotency import idempotency_purge_expired

    purge.register("idempotency-keys", idempotency_purge_expired)


def _sync_roles(sender, **kwargs) -> None:
    # Runs after each project app migrates, so the groups pick up the permissions of every app.
    from payments.roles import PROJECT_APPS, roles_sync

    if sender.name in PROJECT_APPS:
        roles_sync()

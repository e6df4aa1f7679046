from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_save

from payments.staff import config


class PaymentsConfig(config.StaffAppConfig):
    """Cross-cutting API plumbing: merchant accounts, API keys, authentication and shared contracts."""

    name = "payments"
    desk_position = 95
    support_hidden = ("backgroundtask",)  # the task backend's rows: for operators, not agents
    verbose_name = "Payments platform"

    def ready(self) -> None:
        from django_tasks_db.models import DBTaskResult

        from payments.audit.services import audit_hooks_connect
        from payments.jobs.schedule import scheduled_runs_purge_expired
        from payments.jobs.tasks import task_result_withhold_database_detail, task_results_purge_expired
        from payments.middleware import cors  # noqa: F401 - connects the CORS origin check
        from payments.ops import checks, purge  # noqa: F401 - checks registers the system checks
        from payments.outbox import outbox_events_purge_expired
        from payments.rest.idempotency import idempotency_purge_expired
        from payments.vault import rotation
        from payments.vault.services import (
            vaulted_cards_purge_expired,
            vaulted_security_codes_purge_expired,
            vaulted_typed_security_codes_count_stale,
            vaulted_typed_security_codes_purge_expired,
            vaulted_typed_security_codes_rotate_batch,
        )

        audit_hooks_connect()
        post_migrate.connect(_sync_roles, dispatch_uid="payments.staff.roles")
        pre_save.connect(task_result_withhold_database_detail, sender=DBTaskResult, dispatch_uid="payments.jobs.detail")
        purge.register("vaulted-cards", vaulted_cards_purge_expired)
        purge.register("vaulted-security-codes", vaulted_security_codes_purge_expired)
        purge.register("typed-security-codes", vaulted_typed_security_codes_purge_expired)
        rotation.register(
            "typed-security-codes", vaulted_typed_security_codes_rotate_batch, vaulted_typed_security_codes_count_stale
        )
        purge.register("idempotency-keys", idempotency_purge_expired)
        purge.register("outbox-events", outbox_events_purge_expired)
        purge.register("scheduled-runs", scheduled_runs_purge_expired)
        purge.register("task-results", task_results_purge_expired)


def _sync_roles(sender: AppConfig, **kwargs: object) -> None:
    # Runs after each staff app migrates, so the groups pick up the permissions of every app.
    from payments.staff.roles import roles_sync

    if isinstance(sender, config.StaffAppConfig):
        roles_sync()

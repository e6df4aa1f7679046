from payments.staff import config


class ReportsConfig(config.StaffAppConfig):
    """Reports: saved exports of a model's rows (transactions, settlements), run once or on a schedule, as files."""

    name = "reports"
    desk_position = 75
    operator_permissions = ("run_report",)

    def ready(self) -> None:
        import reports.sources.payouts
        import reports.sources.settlements
        import reports.sources.transactions  # noqa: F401  (each module registers its models)
        from payments.audit.services import audit_register_resource
        from payments.ops import purge
        from reports.services.files import report_files_purge_expired

        audit_register_resource(self.get_model("Report"), "report")
        purge.register("report-files", report_files_purge_expired)

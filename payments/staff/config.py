"""The app config every app with staff-facing models uses, so staff roles are assembled from the apps.

Importable while apps load (no model imports). An app's `apps.py` imports this module, not the class:
Django picks an app's config as the one AppConfig subclass named in its `apps.py`, and a second name there
(this base class) would make it fall back to a plain AppConfig.
"""

from django.apps import AppConfig


class StaffAppConfig(AppConfig):
    """An app whose models support staff see in the admin.

    The Support group may view every model of such an app but those it lists in `support_hidden`; the Payments
    operator group views them all and may also use the custom permissions the app lists in `operator_permissions`
    (codenames declared in its models' Meta).
    """

    operator_permissions: tuple[str, ...] = ()
    # Where the app's lists stand on the start page, lowest first (payments.staff.site.desk_sections).
    desk_position: int = 50
    # Models (by model name) the view-only Support group is not given: internals an agent has no use for.
    support_hidden: tuple[str, ...] = ()

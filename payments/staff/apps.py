"""The admin app, with the support desk as its site (see payments.staff.site)."""

from django.contrib.admin.apps import AdminConfig


class SupportDeskAdminConfig(AdminConfig):
    default_site = "payments.staff.site.SupportDeskSite"

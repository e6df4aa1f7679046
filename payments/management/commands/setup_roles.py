from typing import Any

from django.core.management.base import BaseCommand

from payments.staff.roles import roles_sync


class Command(BaseCommand):
    help = "Create or update the staff groups (Support: view only; Payments operator: view and money actions)."

    def handle(self, *args: Any, **options: Any) -> None:
        for group in roles_sync():
            self.stdout.write(f"{group.name}: {group.permissions.count()} permissions")

"""The start page is ordered by what an agent does, for each role: the everyday lists first, the internals last, and
the backend's task rows not offered to Support at all."""

import pytest
from django.contrib.auth.models import Group

from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT, roles_sync

pytestmark = pytest.mark.django_db

EVERYDAY = ["Transactions", "Buyers", "Refunds", "Disputes"]
INTERNALS = ["Background tasks", "Rate limit events", "Settlement report downloads"]


def _sections(client) -> list[tuple[str, list[str]]]:
    response = client.get("/admin/")
    assert response.status_code == 200
    return [(app["name"], [model["name"] for model in app["models"]]) for app in response.context["app_list"]]


def test_a_superuser_sees_the_everyday_lists_first_and_every_internal_last(admin_client):
    sections = _sections(admin_client)

    assert sections[0] == ("Everyday", EVERYDAY)
    assert sections[-1] == ("Internals", INTERNALS)
    names = [name for _, models in sections for name in models]
    assert len(names) == len(set(names))  # each list once: moved to a section, never shown twice
    assert sections[-2][0] == "Authentication and Authorization"  # not a staff app: after every one


@pytest.mark.parametrize(
    ("role", "internals"),
    [(SUPPORT, ["Rate limit events", "Settlement report downloads"]), (PAYMENTS_OPERATOR, INTERNALS)],
)
def test_each_role_sees_the_everyday_lists_first_and_its_internals_last(client, staff_login, role, internals):
    staff_login(role)

    sections = _sections(client)

    assert sections[0] == ("Everyday", EVERYDAY)
    assert sections[-1] == ("Internals", internals)
    # The middle keeps each app's lists together, in the order an agent reaches for them: money before setup.
    middle = [name for name, _ in sections[1:-1]]
    assert middle.index("Stored payment methods") < middle.index("Settlements") < middle.index("Payment services")
    assert middle[-1] == "Payments platform"


def test_support_is_not_given_the_task_backends_rows(client, staff_login):
    staff_login(SUPPORT)

    assert client.get("/admin/payments/backgroundtask/").status_code == 403
    roles_sync()  # kept out when the roles are synced again
    assert not Group.objects.get(name=SUPPORT).permissions.filter(codename="view_backgroundtask").exists()
    assert Group.objects.get(name=PAYMENTS_OPERATOR).permissions.filter(codename="view_backgroundtask").exists()


def test_an_app_page_still_lists_its_own_models(admin_client):
    """Sections are the start page's: an app's own page (the breadcrumb's middle link) keeps its models."""
    response = admin_client.get("/admin/transactions/")

    assert [model["name"] for model in response.context["app_list"][0]["models"]] == ["Refunds", "Transactions"]

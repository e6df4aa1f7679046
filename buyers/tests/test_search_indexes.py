"""Support staff's searches have indexes that match the SQL Django writes for them (docs/admin.md).

With sequential scans priced out, PostgreSQL picks an index whenever one matches the expression: an
index that silently stopped matching the SQL Django writes would fail here, not at a million rows.
"""

import pytest
from django.contrib.admin.sites import site
from django.db import connection
from django.test import RequestFactory

from buyers.models import Buyer

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture(autouse=True)
def _no_sequential_scans():
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")


def _admin_search(term: str):
    request = RequestFactory().get("/admin/buyers/buyer/", {"q": term})
    queryset, _ = site._registry[Buyer].get_search_results(request, Buyer.objects.all(), term)
    return queryset


@pytest.mark.parametrize(
    ("term", "indexes"),
    [
        ("demo-buyer-000042", ["buyer_external_identifier", "buyer_display_name_trgm", "buyer_email_trgm"]),
        ("Grace", ["buyer_external_identifier", "buyer_display_name_trgm", "buyer_email_trgm"]),
        ("Buyer42@Example.com", ["buyer_email_trgm"]),
        ("jane.doe", ["buyer_display_name_trgm", "buyer_email_trgm"]),
        ("@example.org", ["buyer_email_trgm"]),
    ],
    ids=["external-identifier", "name-contains", "email-any-case", "part-of-an-email", "email-domain"],
)
def test_admin_searches_use_an_index(term, indexes):
    plan = _admin_search(term).explain()

    for index in indexes:
        assert index in plan, plan

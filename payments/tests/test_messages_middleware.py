"""The desk's one-time messages are made only when a page uses them: an API request builds no message storage, and
a notice the desk adds is still shown on the next page."""

import pytest
from django.contrib.auth.models import User

from payments.middleware import messages as middleware

pytestmark = pytest.mark.django_db


def test_an_api_request_builds_no_message_storage(api_client, monkeypatch):
    built = []
    monkeypatch.setattr(middleware, "default_storage", lambda request: built.append(request))

    response = api_client(scopes=["buyers.read"]).get("/buyers")

    assert response.status_code == 200
    assert built == []
    assert "messages" not in response.cookies


def test_a_desk_notice_is_shown_on_the_next_page(admin_client):
    user = User.objects.create_user("clerk", is_staff=True)

    saved = admin_client.post(
        f"/admin/auth/user/{user.pk}/change/",
        {
            "username": "clerk-renamed",
            "is_active": "on",
            "is_staff": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
            "initial-date_joined_0": "2026-01-01",
            "initial-date_joined_1": "00:00:00",
        },
        follow=True,
    )

    assert saved.status_code == 200
    assert "was changed successfully" in saved.content.decode()

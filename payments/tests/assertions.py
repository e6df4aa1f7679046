"""Assertions every app's API tests share."""

from typing import Any

from payments.rest.envelope import CODES, VALIDATION_FAILED

ENVELOPE_KEYS = {"type", "code", "status", "message", "details"}


def assert_error(response: Any, status: int, pointer: str | None = None, *, location: str | None = None) -> dict:
    """The response is the JSON error envelope for `status`, with its code; when `pointer` is given, one detail
    names it (at `location`, when given). Returns the envelope."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == ENVELOPE_KEYS, body
    assert (body["type"], body["code"], body["status"]) == ("error", CODES[status], status)
    assert isinstance(body["message"], str)
    assert body["message"]
    if status == 400:  # upstream's words, which clients match, then the reason when there is one
        assert body["message"] == VALIDATION_FAILED or body["message"].startswith(f"{VALIDATION_FAILED}: "), body
    if pointer is not None:
        named = [(detail["location"], detail["pointer"]) for detail in body["details"]]
        assert pointer in [named_pointer for _, named_pointer in named], body["details"]
        if location is not None:
            assert (location, pointer) in named, body["details"]
    return body

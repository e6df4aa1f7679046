"""The answers the Adyen mock adds are the project's own, and each is a valid answer by Adyen's schema for its
operation and status: a test that names one gets what the real Adyen could send."""

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from paymentservices.processors.adyen.tests.mock import ANSWERS, ERRORS, _contract, added_answers, mock_document

CONTRACT_URI = "urn:adyen-checkout"
ADDED = list(added_answers())


def _validator(path: str, method: str, status: str) -> Draft202012Validator:
    registry = Registry().with_resource(
        CONTRACT_URI, Resource.from_contents(_contract(), default_specification=DRAFT202012)
    )
    escaped = path.replace("~", "~0").replace("/", "~1")
    pointer = f"#/paths/{escaped}/{method}/responses/{status}/content/application~1json/schema"
    return Draft202012Validator({"$ref": f"{CONTRACT_URI}{pointer}"}, registry=registry)


@pytest.mark.parametrize(
    ("path", "method", "status", "name", "body"), ADDED, ids=[f"{a[0]} {a[2]} {a[3]}" for a in ADDED]
)
def test_each_added_answer_is_valid_by_adyens_schema(path, method, status, name, body):
    errors = [
        f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in _validator(path, method, status).iter_errors(body)
    ]

    assert errors == []


def test_every_error_status_of_every_operation_has_an_answer():
    statuses = {
        status
        for item in _contract()["paths"].values()
        for operation in item.values()
        for status, response in operation["responses"].items()
        if not status.startswith("2") and "content" in response
    }

    assert statuses <= set(ERRORS)


def test_the_mock_serves_only_the_projects_answers():
    """The contract holds no examples: each answer Prism can give is one of the mock's."""
    named = {(path, status, name) for path, _, status, name, _ in ADDED}
    served = {
        (path, status, name)
        for path, item in mock_document()["paths"].items()
        for operation in item.values()
        for status, response in operation["responses"].items()
        for media in response.get("content", {}).values()
        for name in media.get("examples", {})
    }

    assert served == named
    assert {(path, status) for path, status in ANSWERS} <= {(path, status) for path, status, _ in served}

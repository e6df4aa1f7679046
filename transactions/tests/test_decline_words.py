"""Every `error_code` a transaction can be given has plain words on the desk, and the desk shows them.

The processors' own tables are checked in each processor's folder (`<name>/tests/test_codes.py`); this reads every
module of the server for the codes written in code (`error_code="..."`, or a constant named there), so a code added
in a service cannot reach the desk unexplained.
"""

import ast
import html
from pathlib import Path

import pytest
from django.urls import reverse

from paymentservices.processors.declines import EXPLANATIONS, explain
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
APPS = ("payments", "paymentservices", "transactions", "checkout", "giftcards", "paymentmethods", "threedsecure")


def _modules():
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "tests" not in path.parts and "migrations" not in path.parts:
                yield ast.parse(path.read_text(encoding="utf-8"))


def _codes_written_in_code() -> set[str]:
    trees = list(_modules())
    constants = {
        target.id: node.value.value
        for tree in trees
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    codes = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "error_code":
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    codes.add(node.value.value)
                elif isinstance(node.value, ast.Name) and node.value.id in constants:
                    codes.add(constants[node.value.id])
    return codes


def test_the_scan_finds_codes_from_services_and_processors():
    # The rule is only as good as what it reads: these are written in services and in the calls processors share.
    assert {"service_error", "invalid_service_configuration", "failed_buyer_approval", "requires_three_d_secure"} <= (
        _codes_written_in_code()
    )


def test_every_code_written_in_code_is_explained():
    unexplained = sorted(_codes_written_in_code() - EXPLANATIONS.keys())
    assert not unexplained, f"codes without plain words in paymentservices/processors/declines.py: {unexplained}"


def test_an_unknown_code_is_shown_as_itself_and_said_to_be_unexplained():
    explanation = explain("brand_new_code")
    assert explanation.label == "brand_new_code"
    assert "no explanation" in explanation.meaning


def test_the_transaction_page_says_what_a_decline_means_and_what_to_do(support_client):
    txn = TransactionFactory(status="authorization_declined", error_code="insufficient_funds")
    page = support_client.get(reverse("admin:transactions_transaction_change", args=[txn.pk])).content.decode()
    words = EXPLANATIONS["insufficient_funds"]
    assert html.escape(words.label) in page
    assert html.escape(words.meaning) in page
    assert html.escape(words.next_step) in page


def test_the_list_and_its_filter_show_the_label_not_the_code(support_client):
    TransactionFactory(status="authorization_declined", error_code="do_not_honor")
    page = support_client.get(reverse("admin:transactions_transaction_changelist")).content.decode()
    assert "Declined by the bank" in page
    assert ">do_not_honor<" not in page  # the code travels in the filter's link, never as the text people read
    assert "?error_code=do_not_honor" in page


def test_the_start_page_names_declines_and_failures_in_plain_words(support_client):
    TransactionFactory(status="authorization_declined", error_code="expired_card")
    page = support_client.get(reverse("admin:index")).content.decode()
    assert page.count("Card expired") >= 2  # declines by reason, and recent failures
    assert Transaction.objects.count() == 1

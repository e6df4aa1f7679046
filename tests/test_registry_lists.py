"""What the server lists of its processors is read off the registry: a processor added there is listed everywhere."""

from __future__ import annotations

from config.views import GUIDES, GUIDES_DIR
from paymentservices.api.views import PaymentServiceDefinitionViewSet
from paymentservices.definitions import SANDBOX_ID
from paymentservices.processors import PROCESSORS


def test_the_definitions_list_documents_every_registered_processor():
    text = PaymentServiceDefinitionViewSet.list.__doc__ or ""
    assert text.startswith("List payment service definitions\n")
    for processor in PROCESSORS:
        assert f"`{processor.id}`" in text


def test_each_processor_with_a_guide_is_titled_by_its_slug_and_name():
    guided = [processor for processor in PROCESSORS if (GUIDES_DIR / f"{processor.slug}.md").is_file()]
    assert guided
    for processor in guided:
        assert GUIDES[processor.slug] == f"Connect {processor.display_name} and pay through it"


def test_the_sandbox_a_new_account_is_given_is_the_registered_sandbox():
    assert [processor.id for processor in PROCESSORS if processor.sandbox] == [SANDBOX_ID]

"""The upstream conformance check (tests/test_conformance.py): the document and the scenarios, one module per
group of resources."""

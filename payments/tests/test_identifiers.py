import uuid

import pytest

from payments.identifiers import base62, base62_uuid


@pytest.mark.parametrize(
    ("number", "short"),
    [(0, "0"), (61, "z"), (62, "10"), (3843, "zz"), (3844, "100"), (2**128 - 1, "7n42DGM5Tflk9n8mt7Fhc7")],
)
def test_base62_writes_the_number_in_62_digits_without_leading_zeros(number, short):
    assert base62(uuid.UUID(int=number)) == short
    assert base62_uuid(short) == uuid.UUID(int=number)


def test_base62_reads_back_every_form_it_writes():
    for _ in range(2000):
        value = uuid.uuid4()
        assert base62_uuid(base62(value)) == value


@pytest.mark.parametrize("text", ["", "00", "01", "8" * 22, "a-b"])
def test_base62_uuid_refuses_what_base62_never_writes(text):
    assert base62_uuid(text) is None

"""The vaulted card services: what is sealed, what is shown, and when card data stops existing."""

import base64
import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from conftest import TEST_CARD_KEYS
from payments.errors import NotFound
from payments.ops import purge
from payments.tests.factories import VaultedCardFactory
from payments.vault import crypto
from payments.vault.cards import CardDataError
from payments.vault.models import VaultedCard, VaultedSecurityCode
from payments.vault.services import (
    SECURITY_CODE_MAX_AGE,
    vaulted_card_delete,
    vaulted_card_discard_security_code,
    vaulted_card_reveal,
    vaulted_card_shorten_expiry,
    vaulted_cards_count_stale,
    vaulted_cards_purge_expired,
    vaulted_cards_rotate_batch,
    vaulted_security_code_consume,
    vaulted_security_code_store,
    vaulted_security_codes_purge_expired,
    vaulted_typed_security_codes_count_stale,
    vaulted_typed_security_codes_purge_expired,
)

pytestmark = pytest.mark.django_db

AMEX = "378282246310005"


def key_spec(key_id: str, fill: bytes) -> str:
    return f"{key_id}:" + base64.urlsafe_b64encode(fill * 32).decode().rstrip("=")


def test_store_keeps_only_display_data_in_clear(merchant_account):
    card = VaultedCardFactory(number="4111111111111111", security_code="123")
    card.refresh_from_db()
    assert (card.bin, card.last4, card.scheme) == ("411111", "1111", "visa")
    assert card.fingerprint == crypto.fingerprint("4111111111111111")
    assert card.key_id == crypto.current_key_id()
    assert "4111111111111111" not in card.encrypted_number
    assert card.encrypted_security_code is not None
    assert card.security_code_expires_at <= card.expires_at


def test_security_code_deadline_is_capped_even_for_long_lived_cards(merchant_account):
    before = timezone.now()
    card = VaultedCardFactory(expires_at=before + timedelta(days=30))
    assert card.expires_at == before + timedelta(days=30)
    assert card.security_code_expires_at <= timezone.now() + SECURITY_CODE_MAX_AGE


def test_card_without_code_has_no_code_deadline(merchant_account):
    card = VaultedCardFactory(security_code=None)
    assert card.encrypted_security_code is None
    assert card.security_code_expires_at is None


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        pytest.param({"number": "4111111111111112"}, "invalid_checksum", id="luhn"),
        pytest.param({"number": "411111111111"}, "invalid_length", id="12-digits"),
        pytest.param({"number": "4111 1111 1111 1111"}, "invalid_characters", id="spaces"),
        pytest.param({"number": AMEX, "security_code": "123"}, "invalid_length", id="amex-3-digit-code"),
        pytest.param({"security_code": "1234"}, "invalid_length", id="visa-4-digit-code"),
        pytest.param({"expiration_month": 13}, "invalid_month", id="month-13"),
    ],
)
def test_store_refuses_invalid_card_data(merchant_account, overrides, code):
    with pytest.raises(CardDataError) as raised:
        VaultedCardFactory(**overrides)
    assert raised.value.code == code
    assert "4111111111111112" not in str(raised.value)
    assert not VaultedCard.objects.exists()


def test_reveal_returns_the_card_for_a_connector(merchant_account):
    card = VaultedCardFactory(number=AMEX, security_code="1234", expiration_month=7, expiration_year=2031)
    details = vaulted_card_reveal(card=card)
    assert (details.number, details.security_code) == (AMEX, "1234")
    assert (details.expiration_month, details.expiration_year, details.scheme) == (7, 2031, "amex")
    assert AMEX not in repr(details)
    assert "1234" not in repr(details)


def test_consuming_reveal_deletes_the_code_so_only_the_first_attempt_sees_it(merchant_account):
    card = VaultedCardFactory(security_code="123")
    assert vaulted_card_reveal(card=card, consume_security_code=True).security_code == "123"
    second = vaulted_card_reveal(card=card, consume_security_code=True)
    assert second.security_code is None
    assert second.number == "4111111111111111"
    row = VaultedCard.objects.get(pk=card.pk)
    assert (row.encrypted_security_code, row.security_code_expires_at) == (None, None)


def test_discard_security_code_is_idempotent(merchant_account):
    card = VaultedCardFactory()
    vaulted_card_discard_security_code(card=card)
    vaulted_card_discard_security_code(card=card)
    assert vaulted_card_reveal(card=card).security_code is None


def test_reveal_ignores_a_stale_instance(merchant_account):
    card = VaultedCardFactory()
    stale = VaultedCard.objects.get(pk=card.pk)
    vaulted_card_discard_security_code(card=card)
    assert stale.encrypted_security_code is not None
    assert vaulted_card_reveal(card=stale).security_code is None


def test_reveal_of_an_expired_or_deleted_card_is_not_found(merchant_account):
    expired = VaultedCardFactory()
    VaultedCard.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(NotFound):
        vaulted_card_reveal(card=expired)
    deleted = VaultedCardFactory()
    vaulted_card_delete(card=deleted)
    vaulted_card_delete(card=deleted)
    with pytest.raises(NotFound):
        vaulted_card_reveal(card=deleted)


def test_code_past_its_deadline_is_not_revealed_before_the_purge_runs(merchant_account):
    card = VaultedCardFactory()
    VaultedCard.objects.filter(pk=card.pk).update(security_code_expires_at=timezone.now() - timedelta(seconds=1))
    assert vaulted_card_reveal(card=card).security_code is None


def test_ciphertexts_only_open_on_the_row_and_field_they_were_sealed_for(merchant_account):
    first, second = VaultedCardFactory(), VaultedCardFactory(number="5555555555554444")
    VaultedCard.objects.filter(pk=second.pk).update(encrypted_number=first.encrypted_number)
    with pytest.raises(crypto.VaultError):
        vaulted_card_reveal(card=second)
    VaultedCard.objects.filter(pk=first.pk).update(encrypted_number=first.encrypted_security_code)
    with pytest.raises(crypto.VaultError):
        vaulted_card_reveal(card=first)


def test_shorten_expiry_never_extends(merchant_account):
    now = timezone.now()
    card = VaultedCardFactory(expires_at=now + timedelta(minutes=5))
    vaulted_card_shorten_expiry(card=card, expires_at=now + timedelta(hours=1))
    assert card.expires_at == now + timedelta(minutes=5)
    vaulted_card_shorten_expiry(card=card, expires_at=now + timedelta(minutes=1))
    row = VaultedCard.objects.get(pk=card.pk)
    assert row.expires_at == row.security_code_expires_at == now + timedelta(minutes=1)


def test_purge_jobs_delete_expired_cards_and_codes_in_batches(merchant_account):
    now = timezone.now()
    expired = [VaultedCardFactory(expires_at=now - timedelta(seconds=n + 1)) for n in range(3)]
    live = VaultedCardFactory(expires_at=now + timedelta(minutes=5))
    code_due = VaultedCardFactory(expires_at=now + timedelta(minutes=5))
    VaultedCard.objects.filter(pk=code_due.pk).update(security_code_expires_at=now)

    assert vaulted_cards_purge_expired(now=now, batch_size=2) == 2
    assert vaulted_cards_purge_expired(now=now, batch_size=2) == 1
    assert vaulted_cards_purge_expired(now=now, batch_size=2) == 0
    assert not VaultedCard.objects.filter(pk__in=[card.pk for card in expired]).exists()

    assert vaulted_security_codes_purge_expired(now=now, batch_size=10) == 1
    assert VaultedCard.objects.get(pk=code_due.pk).encrypted_security_code is None
    assert VaultedCard.objects.get(pk=live.pk).encrypted_security_code is not None


class TestKeyRotation:
    OLD = TEST_CARD_KEYS[0]
    NEW = key_spec("new", b"n")

    def test_rotation_reseals_every_card_and_keeps_it_readable(self, merchant_account, settings):
        cards = [
            VaultedCardFactory(number="4111111111111111"),
            VaultedCardFactory(number=AMEX, security_code="1234"),
            VaultedCardFactory(number="5555555555554444", security_code=None),
        ]
        settings.CARD_ENCRYPTION_KEYS = [self.NEW, self.OLD]
        assert vaulted_cards_count_stale() == 3

        call_command("rotate_card_keys", "--batch-size", "2", stdout=io.StringIO())

        assert set(VaultedCard.objects.values_list("key_id", flat=True)) == {"new"}
        settings.CARD_ENCRYPTION_KEYS = [self.NEW]  # the old key can go now
        assert [vaulted_card_reveal(card=card).number for card in cards] == [
            "4111111111111111",
            AMEX,
            "5555555555554444",
        ]
        assert [vaulted_card_reveal(card=card).security_code for card in cards] == ["123", "1234", None]

    def test_rotation_is_idempotent_and_resumable(self, merchant_account, settings):
        cards = [VaultedCardFactory() for _ in range(3)]
        settings.CARD_ENCRYPTION_KEYS = [self.NEW, self.OLD]
        first = vaulted_cards_rotate_batch(batch_size=1)
        assert first.rotated == 1
        # A new run (no resume point) starts over and only finds what the stopped run left.
        assert vaulted_cards_count_stale() == 2
        assert vaulted_cards_rotate_batch(batch_size=10).rotated == 2
        assert vaulted_cards_rotate_batch(batch_size=10).rotated == 0
        sealed = dict(VaultedCard.objects.values_list("pk", "encrypted_number"))
        assert vaulted_cards_rotate_batch(batch_size=10).last_id is None
        assert dict(VaultedCard.objects.values_list("pk", "encrypted_number")) == sealed
        assert all(vaulted_card_reveal(card=card).number == "4111111111111111" for card in cards)

    def test_cards_under_a_missing_key_are_reported_and_left_alone(self, merchant_account, settings):
        readable = VaultedCardFactory()
        settings.CARD_ENCRYPTION_KEYS = [key_spec("lost", b"l")]
        unreadable = VaultedCardFactory(number="5555555555554444")
        settings.CARD_ENCRYPTION_KEYS = [self.NEW, self.OLD]
        untouched = VaultedCard.objects.get(pk=unreadable.pk).encrypted_number

        with pytest.raises(CommandError, match="could not be decrypted"):
            call_command("rotate_card_keys", stdout=io.StringIO())

        assert VaultedCard.objects.get(pk=readable.pk).key_id == "new"
        assert VaultedCard.objects.get(pk=unreadable.pk).encrypted_number == untouched


class TestTypedSecurityCodes:
    """A code typed for a card kept for later (a stored payment method's) is sealed beside the card, never on it."""

    def test_it_is_sealed_apart_from_the_card_and_read_once(self, merchant_account):
        card = VaultedCardFactory(security_code=None, expires_at=timezone.now() + timedelta(days=400))
        code = vaulted_security_code_store(card=card, security_code="321", expires_at=card.expires_at)

        code.refresh_from_db()
        assert "321" not in code.encrypted_security_code
        assert code.key_id == crypto.current_key_id()
        assert code.expires_at <= timezone.now() + SECURITY_CODE_MAX_AGE  # capped like a card's own code
        assert VaultedCard.objects.get(pk=card.pk).encrypted_security_code is None
        assert vaulted_card_reveal(card=card).security_code is None  # another payment with the card never sees it
        assert vaulted_security_code_consume(code_id=code.pk) == "321"
        assert vaulted_security_code_consume(code_id=code.pk) is None  # deleted as it was read
        assert not VaultedSecurityCode.objects.exists()

    def test_it_must_fit_the_cards_scheme(self, merchant_account):
        card = VaultedCardFactory(number=AMEX, security_code=None)

        with pytest.raises(CardDataError):
            vaulted_security_code_store(card=card, security_code="123", expires_at=card.expires_at)
        assert not VaultedSecurityCode.objects.exists()

    def test_past_its_deadline_it_is_never_read_and_the_purge_deletes_it(self, merchant_account):
        now = timezone.now()
        card = VaultedCardFactory(security_code=None)
        read, purged, live = (
            vaulted_security_code_store(card=card, security_code=code, expires_at=now + timedelta(minutes=5))
            for code in ("111", "222", "333")
        )
        VaultedSecurityCode.objects.filter(pk__in=[read.pk, purged.pk]).update(expires_at=now)

        assert vaulted_security_code_consume(code_id=read.pk) is None
        assert vaulted_typed_security_codes_purge_expired(now=now, batch_size=10) == 1
        assert list(VaultedSecurityCode.objects.values_list("pk", flat=True)) == [live.pk]
        assert "typed-security-codes" in purge.registered_jobs()

    def test_it_goes_with_its_card(self, merchant_account):
        card = VaultedCardFactory(security_code=None)
        vaulted_security_code_store(card=card, security_code="321", expires_at=card.expires_at)

        vaulted_card_delete(card=card)

        assert not VaultedSecurityCode.objects.exists()

    def test_it_opens_on_its_own_row_only(self, merchant_account):
        card = VaultedCardFactory(security_code=None)
        first = vaulted_security_code_store(card=card, security_code="321", expires_at=card.expires_at)
        second = vaulted_security_code_store(card=card, security_code="654", expires_at=card.expires_at)
        VaultedSecurityCode.objects.filter(pk=second.pk).update(encrypted_security_code=first.encrypted_security_code)

        with pytest.raises(crypto.VaultError):
            vaulted_security_code_consume(code_id=second.pk)

    def test_key_rotation_reseals_it(self, merchant_account, settings):
        card = VaultedCardFactory(security_code=None)
        code = vaulted_security_code_store(card=card, security_code="321", expires_at=card.expires_at)
        settings.CARD_ENCRYPTION_KEYS = [TestKeyRotation.NEW, TestKeyRotation.OLD]
        assert vaulted_typed_security_codes_count_stale() == 1

        out = io.StringIO()
        call_command("rotate_card_keys", stdout=out)
        settings.CARD_ENCRYPTION_KEYS = [TestKeyRotation.NEW]  # the old key can go now

        assert "typed-security-codes" in out.getvalue()
        assert VaultedSecurityCode.objects.get(pk=code.pk).key_id == "new"
        assert vaulted_typed_security_codes_count_stale() == 0
        assert vaulted_security_code_consume(code_id=code.pk) == "321"

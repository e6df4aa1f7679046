"""Wallet tokens: Apple Pay EC_v1 and Google Pay ECv2 verified and decrypted, every hostile token refused with the
reason that names it, checked against tokens minted by the tests' own roots and against published vectors."""

from __future__ import annotations

import base64
import contextlib
import json
from datetime import UTC, datetime, timedelta

import hypothesis
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, load_der_private_key
from hypothesis import strategies as st

from payments.tests import wallet_token_vectors as vectors
from payments.wallettokens import (
    AuthMethod,
    BadSignature,
    ExpiredToken,
    MalformedToken,
    OtherMerchant,
    ReplayedToken,
    TamperedCiphertext,
    UnsupportedToken,
    UntrustedSigner,
    Wallet,
    WalletTokenRefused,
    decrypt_apple_pay,
    decrypt_google_pay,
    merchant_recipient_id,
    refuse_replay,
    replay_digest,
    roots,
    testing,
)
from payments.wallettokens.google import unseal_google_pay

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)
MINUTE = timedelta(minutes=1)
HOUR_MS = 3_600_000
MERCHANT_IDENTIFIER = "merchant.com.example.shop"
GOOGLE_MERCHANT_ID = "12345678901234567890"


@pytest.fixture(scope="module")
def pki():
    return testing.apple_pay_test_pki(valid_from=NOW - timedelta(days=1))


@pytest.fixture(scope="module")
def processing_key():
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture(scope="module")
def google_keys():
    return testing.google_pay_test_keys()


def _apple_token(pki, processing_key, **overrides):
    arguments = {
        "pki": pki,
        "merchant_identifier": MERCHANT_IDENTIFIER,
        "processing_key": processing_key.public_key(),
        "signing_time": NOW - MINUTE,
    }
    return testing.mint_apple_pay_token(**(arguments | overrides))


def _decrypt_apple(token, pki, processing_key, **overrides):
    arguments = {
        "merchant_identifier": MERCHANT_IDENTIFIER,
        "processing_keys": [processing_key],
        "now": NOW,
        "trusted_roots": [pki.root],
    }
    return decrypt_apple_pay(token, **(arguments | overrides))


# Apple Pay


def test_an_apple_pay_token_decrypts_to_its_device_number_cryptogram_and_amount(pki, processing_key):
    token = _apple_token(pki, processing_key, transaction_id=bytes.fromhex("ab" * 32))

    payment = _decrypt_apple(json.dumps(token), pki, processing_key)

    assert payment.wallet is Wallet.APPLE_PAY
    assert payment.transaction_id == "ab" * 32
    assert (payment.number, payment.expiration_month, payment.expiration_year) == ("4111111111111111", 12, 2030)
    assert payment.auth_method is AuthMethod.CRYPTOGRAM_3DS
    assert (payment.cryptogram, payment.eci) == ("AgAAAAAABk4DWZ4C28yUQAAAAAA=", "07")
    assert (payment.amount, payment.currency) == (1299, "USD")


def test_the_signature_covers_application_data_when_the_token_has_it(pki, processing_key):
    token = _apple_token(pki, processing_key, application_data=b"\x01" * 32)
    assert _decrypt_apple(token, pki, processing_key).amount == 1299

    token["header"]["applicationData"] = "02" * 32
    with pytest.raises(BadSignature):
        _decrypt_apple(token, pki, processing_key)


def test_the_key_the_public_key_hash_names_is_chosen_among_the_merchants_keys(pki, processing_key):
    other = ec.generate_private_key(ec.SECP256R1())

    payment = _decrypt_apple(
        _apple_token(pki, processing_key), pki, processing_key, processing_keys=[other, processing_key]
    )

    assert payment.number == "4111111111111111"


def _flip_first_byte(text: str) -> str:
    raw = bytearray(base64.b64decode(text))
    raw[0] ^= 1
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize(
    "change",
    [
        lambda token, fresh: token.update(data=_flip_first_byte(token["data"])),
        lambda token, fresh: token["header"].update(transactionId="00" * 32),
        lambda token, fresh: token["header"].update(ephemeralPublicKey=fresh["header"]["ephemeralPublicKey"]),
        lambda token, fresh: token.update(signature=fresh["signature"]),
    ],
    ids=["data", "transaction-id", "ephemeral-key", "signature-of-another-token"],
)
def test_a_token_altered_after_signing_is_a_bad_signature(pki, processing_key, change):
    token = _apple_token(pki, processing_key)
    change(token, _apple_token(pki, processing_key))

    with pytest.raises(BadSignature):
        _decrypt_apple(token, pki, processing_key)


def test_a_token_whose_chain_ends_at_another_root_is_untrusted(pki, processing_key):
    other_root = testing.apple_pay_test_pki(valid_from=NOW - timedelta(days=1)).root

    with pytest.raises(UntrustedSigner, match="trusted root"):
        _decrypt_apple(_apple_token(pki, processing_key), pki, processing_key, trusted_roots=[other_root])


def test_by_default_only_apple_root_ca_g3_is_trusted(pki, processing_key):
    assert [root.subject.rfc4514_string() for root in roots.apple_pay_roots()] == [
        "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3"
    ]

    with pytest.raises(UntrustedSigner):
        _decrypt_apple(_apple_token(pki, processing_key), pki, processing_key, trusted_roots=None)


def test_the_configured_roots_file_replaces_the_pinned_root(pki, processing_key, settings, tmp_path):
    bundle = tmp_path / "roots.pem"
    bundle.write_bytes(pki.root.public_bytes(Encoding.PEM))
    settings.WALLET_APPLE_PAY_ROOTS_FILE = str(bundle)

    payment = _decrypt_apple(_apple_token(pki, processing_key), pki, processing_key, trusted_roots=None)

    assert payment.number == "4111111111111111"


@pytest.mark.parametrize(
    ("hostile", "reason"),
    [
        ({"leaf_oid": False}, "leaf"),
        ({"intermediate_oid": False}, "intermediate certificate is not Apple's"),
        ({"intermediate_is_ca": False}, "not a certificate authority"),
    ],
    ids=["leaf-without-oid", "intermediate-without-oid", "intermediate-not-a-ca"],
)
def test_a_chain_without_apples_markers_is_untrusted(processing_key, hostile, reason):
    hostile_pki = testing.apple_pay_test_pki(valid_from=NOW - timedelta(days=1), **hostile)

    with pytest.raises(UntrustedSigner, match=reason):
        _decrypt_apple(_apple_token(hostile_pki, processing_key), hostile_pki, processing_key)


@pytest.mark.parametrize("offset", [-6 * MINUTE, 6 * MINUTE], ids=["signed-too-long-ago", "signed-in-the-future"])
def test_a_token_signed_outside_the_window_is_expired(pki, processing_key, offset):
    token = _apple_token(pki, processing_key, signing_time=NOW + offset)

    with pytest.raises(ExpiredToken, match="window"):
        _decrypt_apple(token, pki, processing_key)


def test_the_signing_window_is_configurable(pki, processing_key, settings):
    token = _apple_token(pki, processing_key, signing_time=NOW - 6 * MINUTE)
    settings.WALLET_APPLE_PAY_SIGNING_WINDOW_SECONDS = 600

    assert _decrypt_apple(token, pki, processing_key).number == "4111111111111111"


def test_a_token_signed_before_its_certificates_were_valid_is_expired(processing_key):
    future_pki = testing.apple_pay_test_pki(valid_from=NOW + MINUTE)

    with pytest.raises(ExpiredToken, match="certificate"):
        _decrypt_apple(_apple_token(future_pki, processing_key), future_pki, processing_key)


def test_a_token_for_another_merchants_key_is_refused_by_its_public_key_hash(pki, processing_key):
    others = ec.generate_private_key(ec.SECP256R1())

    with pytest.raises(OtherMerchant):
        _decrypt_apple(_apple_token(pki, others), pki, processing_key)


def test_a_token_for_another_merchant_identifier_does_not_authenticate(pki, processing_key):
    token = _apple_token(pki, processing_key, merchant_identifier="merchant.com.example.other")

    with pytest.raises(TamperedCiphertext):
        _decrypt_apple(token, pki, processing_key)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"version": "RSA_v1"}, "RSA_v1"),
        ({"payload": testing.apple_pay_payload(payment_data_type="EMV")}, "EMV"),
    ],
    ids=["rsa-version", "emv-data"],
)
def test_unsupported_apple_pay_tokens_are_refused_by_name(pki, processing_key, change, reason):
    token = _apple_token(pki, processing_key, **{key: value for key, value in change.items() if key == "payload"})
    token.update({key: value for key, value in change.items() if key == "version"})

    with pytest.raises(UnsupportedToken, match=reason):
        _decrypt_apple(token, pki, processing_key)


def _without_header_field(field):
    def change(token):
        del token["header"][field]

    return change


@pytest.mark.parametrize(
    "change",
    [
        lambda token: "{not json",
        lambda token: "[]",
        lambda token: token.pop("header") and token,
        lambda token: token.update(data="***") or token,
        lambda token: token.update(signature=base64.b64encode(b"not a cms structure").decode()) or token,
        lambda token: token["header"].update(transactionId="zz") or token,
        lambda token: token["header"].update(publicKeyHash=7) or token,
        lambda token: _without_header_field("ephemeralPublicKey")(token) or token,
        lambda token: token.pop("version") and token,
    ],
    ids=["not-json", "not-an-object", "no-header", "data-not-base64", "signature-not-cms", "transaction-id-not-hex",
         "key-hash-not-a-string", "no-ephemeral-key", "no-version"],
)  # fmt: skip
def test_malformed_apple_pay_tokens_are_refused_as_malformed(pki, processing_key, change):
    token = change(_apple_token(pki, processing_key))

    with pytest.raises(MalformedToken):
        _decrypt_apple(token, pki, processing_key)


@pytest.mark.parametrize(
    ("payload_change", "field"),
    [
        ({"applicationPrimaryAccountNumber": "41111111111x1111"}, "applicationPrimaryAccountNumber"),
        ({"applicationExpirationDate": "301331"}, "applicationExpirationDate"),
        ({"transactionAmount": "1299"}, "transactionAmount"),
        ({"currencyCode": "999999"}, "currencyCode"),
        ({"paymentData": {}}, "onlinePaymentCryptogram"),
    ],
    ids=["number", "expiry", "amount", "currency", "cryptogram"],
)
def test_a_decrypted_payload_out_of_shape_is_malformed(pki, processing_key, payload_change, field):
    token = _apple_token(pki, processing_key, payload=testing.apple_pay_payload() | payload_change)

    with pytest.raises(MalformedToken, match=field):
        _decrypt_apple(token, pki, processing_key)


def test_a_token_apple_signed_verifies_against_the_pinned_apple_root():
    """Apple's own signature (real leaf and intermediate, real OIDs, BER as Apple encodes it) is accepted by the
    pinned Apple Root CA - G3; the token then names a processing key we do not hold."""
    signed_at = datetime(2023, 3, 7, 5, 33, 48, tzinfo=UTC)
    token = vectors.APPLE_PAY_SANDBOX_TOKEN
    arguments = {
        "merchant_identifier": vectors.APPLE_PAY_SANDBOX_MERCHANT_IDENTIFIER,
        "processing_keys": [ec.generate_private_key(ec.SECP256R1())],
    }

    with pytest.raises(OtherMerchant):
        decrypt_apple_pay(token, now=signed_at + MINUTE, **arguments)
    with pytest.raises(ExpiredToken):
        decrypt_apple_pay(token, now=signed_at + timedelta(days=1), **arguments)
    with pytest.raises(UntrustedSigner):
        decrypt_apple_pay(token, now=signed_at + MINUTE, trusted_roots=[testing.apple_pay_test_pki(
            valid_from=signed_at - timedelta(days=1)).root], **arguments)  # fmt: skip


# Google Pay


def _google_token(google_keys, merchant_key, **overrides):
    arguments = {
        "keys": google_keys,
        "recipient_id": merchant_recipient_id(GOOGLE_MERCHANT_ID),
        "merchant_public_key": merchant_key.public_key(),
        "message": testing.google_pay_message(expires_at_ms=NOW_MS + HOUR_MS),
        "key_expires_at_ms": NOW_MS + 24 * HOUR_MS,
    }
    return testing.mint_google_pay_token(**(arguments | overrides))


def _decrypt_google(token, google_keys, merchant_key, **overrides):
    arguments = {
        "merchant_id": GOOGLE_MERCHANT_ID,
        "private_keys": [merchant_key],
        "now": NOW,
        "root_keys": google_keys.root_keys(expires_at_ms=NOW_MS + 365 * 24 * HOUR_MS),
    }
    return decrypt_google_pay(token, **(arguments | overrides))


def test_a_google_pay_token_decrypts_to_its_device_number_and_cryptogram(google_keys, processing_key):
    message = testing.google_pay_message(expires_at_ms=NOW_MS + HOUR_MS, message_id="AH2EjtcMessage1")

    payment = _decrypt_google(_google_token(google_keys, processing_key, message=message), google_keys, processing_key)

    assert payment.wallet is Wallet.GOOGLE_PAY
    assert payment.transaction_id == "AH2EjtcMessage1"
    assert (payment.number, payment.expiration_month, payment.expiration_year) == ("4895370012003478", 12, 2030)
    assert payment.auth_method is AuthMethod.CRYPTOGRAM_3DS
    assert (payment.cryptogram, payment.eci) == ("AgAAAAAABk4DWZ4C28yUQAAAAAA=", "05")
    assert (payment.amount, payment.currency) == (None, None)


def test_a_pan_only_token_is_a_card_without_a_cryptogram(google_keys, processing_key):
    message = testing.google_pay_message(expires_at_ms=NOW_MS + HOUR_MS, auth_method="PAN_ONLY", pan="4111111111111111")

    payment = _decrypt_google(_google_token(google_keys, processing_key, message=message), google_keys, processing_key)

    assert (payment.auth_method, payment.number) == (AuthMethod.PAN_ONLY, "4111111111111111")
    assert (payment.cryptogram, payment.eci) == (None, None)


def test_root_keys_are_read_from_googles_published_format(google_keys, processing_key, settings, tmp_path):
    document = tmp_path / "keys.json"
    document.write_text(google_keys.root_keys_document(expires_at_ms=NOW_MS + HOUR_MS))
    settings.WALLET_GOOGLE_PAY_ROOT_KEYS_FILE = str(document)

    payment = _decrypt_google(_google_token(google_keys, processing_key), google_keys, processing_key, root_keys=None)

    assert payment.number == "4895370012003478"


def test_by_default_googles_production_root_keys_are_trusted(google_keys, processing_key):
    pinned = roots.google_pay_root_keys()
    assert [key.protocol_version for key in pinned] == ["ECv2"]

    with pytest.raises(UntrustedSigner):
        _decrypt_google(_google_token(google_keys, processing_key), google_keys, processing_key, root_keys=None)


@pytest.mark.parametrize(
    "untrusted_roots",
    [
        lambda keys: testing.google_pay_test_keys().root_keys(expires_at_ms=NOW_MS + HOUR_MS),
        lambda keys: keys.root_keys(expires_at_ms=NOW_MS - 1),
        lambda keys: keys.root_keys(expires_at_ms=None),
        lambda keys: keys.root_keys(expires_at_ms=NOW_MS + HOUR_MS, protocol_version="ECv1"),
    ],
    ids=["another-root", "root-expired", "root-without-expiration", "root-for-another-protocol"],
)
def test_an_intermediate_key_not_signed_by_a_live_ecv2_root_is_untrusted(google_keys, processing_key, untrusted_roots):
    token = _google_token(google_keys, processing_key)

    with pytest.raises(UntrustedSigner):
        _decrypt_google(token, google_keys, processing_key, root_keys=untrusted_roots(google_keys))


def test_an_expired_intermediate_key_is_expired(google_keys, processing_key):
    token = _google_token(google_keys, processing_key, key_expires_at_ms=NOW_MS - 1)

    with pytest.raises(ExpiredToken, match="intermediate"):
        _decrypt_google(token, google_keys, processing_key)


def test_an_expired_message_is_expired(google_keys, processing_key):
    token = _google_token(google_keys, processing_key, message=testing.google_pay_message(expires_at_ms=NOW_MS))

    with pytest.raises(ExpiredToken, match="messageExpiration"):
        _decrypt_google(token, google_keys, processing_key)


def test_a_token_signed_for_another_recipient_is_a_bad_signature(google_keys, processing_key):
    token = _google_token(google_keys, processing_key, recipient_id=merchant_recipient_id("another-merchant"))

    with pytest.raises(BadSignature, match="recipient"):
        _decrypt_google(token, google_keys, processing_key)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda outer: outer.update(signedMessage=outer["signedMessage"] + " "), BadSignature),
        (lambda outer: outer.update(signature=json.loads(_other_token())["signature"]), BadSignature),
        (lambda outer: _alter_signed_key(outer["intermediateSigningKey"]), UntrustedSigner),
    ],
    ids=["signed-message-altered", "signature-of-another-token", "signed-key-altered"],
)  # fmt: skip
def test_a_google_pay_token_altered_after_signing_is_refused(google_keys, processing_key, change, error):
    outer = json.loads(_google_token(google_keys, processing_key))
    change(outer)

    with pytest.raises(error):
        _decrypt_google(json.dumps(outer), google_keys, processing_key)


def _alter_signed_key(intermediate):
    intermediate["signedKey"] += " "


def _other_token():
    keys = testing.google_pay_test_keys()
    return _google_token(keys, ec.generate_private_key(ec.SECP256R1()))


@pytest.mark.parametrize("field", ["encryptedMessage", "tag"], ids=["ciphertext", "tag"])
def test_a_signed_message_with_a_tampered_ciphertext_or_tag_does_not_authenticate(google_keys, processing_key, field):
    message = json.dumps(testing.google_pay_message(expires_at_ms=NOW_MS + HOUR_MS)).encode()
    sealed = json.loads(testing.google_pay_signed_message(message, merchant_public_key=processing_key.public_key()))
    raw = bytearray(base64.b64decode(sealed[field]))
    raw[0] ^= 1
    sealed[field] = base64.b64encode(bytes(raw)).decode()
    token = _google_token(google_keys, processing_key, signed_message=json.dumps(sealed))

    with pytest.raises(TamperedCiphertext):
        _decrypt_google(token, google_keys, processing_key)


def test_a_token_sealed_for_another_merchants_key_does_not_authenticate(google_keys, processing_key):
    token = _google_token(google_keys, ec.generate_private_key(ec.SECP256R1()))

    with pytest.raises(TamperedCiphertext):
        _decrypt_google(token, google_keys, processing_key)


def test_the_first_of_the_merchants_keys_that_authenticates_decrypts(google_keys, processing_key):
    token = _google_token(google_keys, processing_key)
    keys = [ec.generate_private_key(ec.SECP256R1()), processing_key]

    assert _decrypt_google(token, google_keys, processing_key, private_keys=keys).number == "4895370012003478"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda outer: outer.update(protocolVersion="ECv1"), "ECv1"),
        (lambda outer: outer.update(protocolVersion="ECv2SigningOnly"), "ECv2SigningOnly"),
    ],
    ids=["ecv1", "signing-only"],
)
def test_other_google_pay_protocols_are_refused_by_name(google_keys, processing_key, change, reason):
    outer = json.loads(_google_token(google_keys, processing_key))
    change(outer)

    with pytest.raises(UnsupportedToken, match=reason):
        _decrypt_google(json.dumps(outer), google_keys, processing_key)


@pytest.mark.parametrize(
    ("message_change", "error"),
    [
        ({"paymentMethod": "TOKENIZED_CARD"}, UnsupportedToken),
        ({"paymentMethodDetails": {"authMethod": "PAN_AND_PIN"}}, UnsupportedToken),
        ({"paymentMethodDetails": {"authMethod": "PAN_ONLY", "pan": "4111", "expirationMonth": 1}}, MalformedToken),
        ({"messageExpiration": "soon"}, MalformedToken),
        ({"messageId": None}, MalformedToken),
    ],
    ids=["not-a-card", "unknown-auth-method", "short-pan", "expiration-not-millis", "no-message-id"],
)
def test_a_decrypted_message_out_of_shape_is_refused(google_keys, processing_key, message_change, error):
    message = testing.google_pay_message(expires_at_ms=NOW_MS + HOUR_MS) | message_change

    with pytest.raises(error):
        _decrypt_google(_google_token(google_keys, processing_key, message=message), google_keys, processing_key)


@pytest.mark.parametrize(
    "change",
    [
        lambda outer: "not json",
        lambda outer: "[1]",
        lambda outer: outer.pop("intermediateSigningKey") and outer,
        lambda outer: outer["intermediateSigningKey"].update(signatures=[]) or outer,
        lambda outer: outer["intermediateSigningKey"].update(signatures=["***"]) or outer,
        lambda outer: outer.update(signature="***") or outer,
        lambda outer: outer.pop("signedMessage") and outer,
        lambda outer: outer.update(protocolVersion=2) or outer,
    ],
    ids=["not-json", "not-an-object", "no-intermediate-key", "no-key-signatures", "key-signature-not-base64",
         "signature-not-base64", "no-signed-message", "version-not-a-string"],
)  # fmt: skip
def test_malformed_google_pay_tokens_are_refused_as_malformed(google_keys, processing_key, change):
    token = change(json.loads(_google_token(google_keys, processing_key)))

    with pytest.raises(MalformedToken):
        _decrypt_google(token if isinstance(token, str) else json.dumps(token), google_keys, processing_key)


def test_googles_published_ecv2_vector_unseals():
    merchant_keys = vectors.GOOGLE_ECV2_MERCHANT_KEYS_PKCS8
    arguments = {
        "root_keys": roots.load_google_root_keys(vectors.GOOGLE_ECV2_ROOT_KEYS),
        "private_keys": [load_der_private_key(base64.b64decode(key), None) for key in merchant_keys],
        "now": datetime.fromtimestamp(vectors.GOOGLE_ECV2_VERIFIED_AT_MS / 1000, UTC),
    }  # fmt: skip

    assert unseal_google_pay(vectors.GOOGLE_ECV2_TOKEN, recipient_id=vectors.GOOGLE_ECV2_RECIPIENT_ID, **arguments) == (
        b"plaintext"
    )
    with pytest.raises(BadSignature):
        unseal_google_pay(vectors.GOOGLE_ECV2_TOKEN, recipient_id="gateway:another", **arguments)
    later = datetime.fromtimestamp(vectors.GOOGLE_ECV2_KEY_EXPIRES_AT_MS / 1000, UTC)
    with pytest.raises(ExpiredToken):
        unseal_google_pay(
            vectors.GOOGLE_ECV2_TOKEN, recipient_id=vectors.GOOGLE_ECV2_RECIPIENT_ID, **arguments | {"now": later}
        )


# Whatever arrives


def _altered(data: st.DataObject, encoded: str) -> str:
    """`encoded` (base64) with some of its decoded bytes replaced, or cut short."""
    raw = bytearray(base64.b64decode(encoded))
    for position in data.draw(st.lists(st.integers(0, len(raw) - 1), min_size=1, max_size=4)):
        raw[position] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    return base64.b64encode(bytes(raw)).decode()


def _altered_text(data: st.DataObject, text: str) -> str:
    characters = list(text)
    for position in data.draw(st.lists(st.integers(0, len(characters) - 1), min_size=1, max_size=3)):
        characters[position] = data.draw(st.characters(codec="utf-8", exclude_categories=["Cs"]))
    return "".join(characters)


APPLE_FIELDS = {
    "signature": lambda token, data: token.update(signature=_altered(data, token["signature"])),
    "data": lambda token, data: token.update(data=_altered(data, token["data"])),
    "ephemeral-key": lambda token, data: token["header"].update(
        ephemeralPublicKey=_altered(data, token["header"]["ephemeralPublicKey"])
    ),
}


@pytest.fixture(scope="module")
def apple_token(pki, processing_key):
    """One token for every example, so an example replays the same bytes."""
    return json.dumps(_apple_token(pki, processing_key))


@pytest.fixture(scope="module")
def google_token(google_keys, processing_key):
    return _google_token(google_keys, processing_key)


@hypothesis.settings(max_examples=150, deadline=None, derandomize=True)
@hypothesis.given(data=st.data())
def test_any_altered_apple_pay_token_is_refused_with_a_reason(pki, processing_key, apple_token, data):
    """Bytes replaced anywhere (the CMS structure, its certificates, the data, the key) are a refusal, never another
    exception: the API answers a 4xx, not a 500."""
    token = json.loads(apple_token)
    APPLE_FIELDS[data.draw(st.sampled_from(sorted(APPLE_FIELDS)))](token, data)
    text = _altered_text(data, json.dumps(token)) if data.draw(st.booleans()) else json.dumps(token)

    with contextlib.suppress(WalletTokenRefused):
        _decrypt_apple(text, pki, processing_key)


@hypothesis.settings(max_examples=150, deadline=None, derandomize=True)
@hypothesis.given(data=st.data())
def test_any_altered_google_pay_token_is_refused_with_a_reason(google_keys, processing_key, google_token, data):
    with contextlib.suppress(WalletTokenRefused):
        _decrypt_google(_altered_text(data, google_token), google_keys, processing_key)


# The replay guard


def test_a_wallet_token_pays_once(google_keys, processing_key, pki):
    remembered: set[str] = set()

    def remember(digest: str) -> bool:
        fresh = digest not in remembered
        remembered.add(digest)
        return fresh

    google_payment = _decrypt_google(_google_token(google_keys, processing_key), google_keys, processing_key)
    apple_payment = _decrypt_apple(_apple_token(pki, processing_key), pki, processing_key)
    refuse_replay(google_payment, remember=remember)
    refuse_replay(apple_payment, remember=remember)

    with pytest.raises(ReplayedToken):
        refuse_replay(google_payment, remember=remember)
    with pytest.raises(ReplayedToken):
        refuse_replay(apple_payment, remember=remember)


def test_the_replay_digest_is_a_keyed_hash_of_the_wallet_and_transaction_id(pki, processing_key):
    token = _apple_token(pki, processing_key)
    payment = _decrypt_apple(token, pki, processing_key)

    digest = replay_digest(payment)

    assert digest == replay_digest(_decrypt_apple(token, pki, processing_key))
    assert payment.transaction_id not in digest
    assert digest != replay_digest(_decrypt_apple(_apple_token(pki, processing_key), pki, processing_key))


def test_card_data_stays_out_of_a_payments_repr(pki, processing_key):
    payment = _decrypt_apple(_apple_token(pki, processing_key), pki, processing_key)

    assert "4111111111111111" not in repr(payment)
    assert "AgAAAAAABk4DWZ4C28yUQAAAAAA=" not in repr(payment)

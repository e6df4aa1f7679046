"""Wallets registered through the service (so each has its real key pairs), and certificates signed as Apple signs
them, by a certificate authority made for the test."""

from __future__ import annotations

import base64
import datetime
from dataclasses import dataclass, field

import factory
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from digitalwallets.models import DigitalWallet, WalletKey
from digitalwallets.services import digital_wallet_register
from payments.tests.factories import MerchantAccountFactory

MERCHANT_ID = "merchant.com.example.shop"


def register(merchant_account, provider="apple", **fields) -> DigitalWallet:
    values = {"merchant_name": "Acme Shop", "accept_terms_and_conditions": True, "domain_names": ["shop.example.com"]}
    return digital_wallet_register(merchant_account=merchant_account, provider=provider, **{**values, **fields})


class DigitalWalletFactory(factory.django.DjangoModelFactory[DigitalWallet]):
    """A wallet registered through the service, with its key pairs (Apple Pay unless `provider` says otherwise)."""

    class Meta:
        model = DigitalWallet

    merchant_account = factory.SubFactory(MerchantAccountFactory)
    provider = "apple"
    merchant_name = factory.Faker("company")
    domain_names = factory.LazyFunction(lambda: ["shop.example.com"])

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        kwargs.setdefault("accept_terms_and_conditions", True)
        return digital_wallet_register(**kwargs)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@dataclass
class TestAuthority:
    """A certificate authority of the test's own: it signs CSRs as Apple does, and server certificates."""

    __test__ = False  # a helper named like a test class, never collected

    name: str = "Test Apple Worldwide Developer Relations CA"
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))

    def __post_init__(self) -> None:
        now = datetime.datetime.now(datetime.UTC)
        self.certificate = (
            x509.CertificateBuilder()
            .subject_name(_name(self.name))
            .issuer_name(_name(self.name))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256())
        )

    @property
    def pem(self) -> str:
        return self.certificate.public_bytes(serialization.Encoding.PEM).decode("ascii")

    def sign(self, public_key, subject: x509.Name, *, days: int = 365, dns: str | None = None) -> x509.Certificate:
        now = datetime.datetime.now(datetime.UTC)
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(self.certificate.subject)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=2))
            .not_valid_after(now + datetime.timedelta(days=days))
        )
        if dns is not None:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False)
        return builder.sign(self.key, hashes.SHA256())

    def sign_csr(self, key: WalletKey, *, merchant_id: str | None = MERCHANT_ID, days: int = 365) -> str:
        """The `.cer` Apple gives back for a wallet key's CSR, in base64; the identity certificate names the merchant
        identifier as Apple's do (subject UID)."""
        request = x509.load_pem_x509_csr(key.csr.encode("ascii"))
        attributes = [x509.NameAttribute(NameOID.COMMON_NAME, f"Merchant ID: {merchant_id}")]
        if merchant_id is not None:
            attributes.insert(0, x509.NameAttribute(NameOID.USER_ID, merchant_id))
        certificate = self.sign(request.public_key(), x509.Name(attributes), days=days)
        return base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode("ascii")

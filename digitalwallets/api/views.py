"""HTTP for digital wallets: validate, call one service or selector, render."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from digitalwallets.api.serializers import (
    ApplePaySessionInput,
    CertificateUploadInput,
    DigitalWalletCreateInput,
    DigitalWalletDomainInput,
    DigitalWalletListOutput,
    DigitalWalletOutput,
    DigitalWalletUpdateInput,
    GooglePaySessionInput,
    WalletKeyListOutput,
    WalletKeyOutput,
)
from digitalwallets.models import DigitalWallet
from digitalwallets.selectors import digital_wallet_get, digital_wallet_list
from digitalwallets.services import (
    digital_wallet_certificate_upload,
    digital_wallet_delete,
    digital_wallet_domain_add,
    digital_wallet_domain_remove,
    digital_wallet_register,
    digital_wallet_update,
)
from digitalwallets.sessions import apple_pay_session_create, google_pay_session_create
from payments.errors import DomainError
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account

_SESSION_SCOPES = ("digital-wallets.write", "embed")
_SESSION_ACTIONS = ("apple", "google", "refused")


class DigitalWalletViewSet(viewsets.GenericViewSet[DigitalWallet]):
    """`/digital-wallets[/{digital_wallet_id}]` and a wallet's domains, key pairs and certificates."""

    queryset = DigitalWallet.objects.none()  # names the model for the schema; requests use the account's
    scope_resource = "digital-wallets"
    serializer_class = DigitalWalletOutput
    pagination_class = None  # upstream's list has no pages: an account has one wallet per provider at most
    lookup_url_kwarg = "digital_wallet_id"

    def get_object(self) -> DigitalWallet:
        return digital_wallet_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["digital_wallet_id"]
        )

    @extend_schema(responses={200: DigitalWalletListOutput})
    def list(self, request: Request) -> Response:
        """List digital wallets

        Every wallet the merchant account registered (at most one per provider), newest first, in one answer.
        Needs the `digital-wallets.read` scope.
        """
        wallets = digital_wallet_list(merchant_account=request_merchant_account(request))
        return Response(DigitalWalletListOutput({"items": list(wallets)}).data)

    @extend_schema(request=DigitalWalletCreateInput, responses={201: DigitalWalletOutput})
    def create(self, request: Request) -> Response:
        """Register digital wallet

        Registers the merchant account for Apple Pay (`apple`) or Google Pay (`google`) and makes the wallet's key
        pairs on this server: Apple Pay's payment processing (EC P-256) and merchant identity (RSA 2048) keys with
        their certificate signing requests, Google Pay's EC P-256 key. Private keys never leave the server; the
        public halves and requests are read with `GET /digital-wallets/{digital_wallet_id}/keys`.
        `accept_terms_and_conditions` must be true. Needs the `digital-wallets.write` scope.

        400: `click-to-pay` and `paze` are not supported (refused by name).

        409: The merchant account already has a wallet of this provider.
        """
        data = validated(DigitalWalletCreateInput(data=request.data))
        account = request_merchant_account(request)
        wallet = digital_wallet_register(merchant_account=account, **data)
        created = digital_wallet_get(merchant_account=account, id=wallet.pk)
        return Response(DigitalWalletOutput(created).data, status=status.HTTP_201_CREATED)

    def retrieve(self, request: Request, digital_wallet_id: str) -> Response:
        """Get digital wallet

        One wallet of the merchant account, with its domains and how many of its certificates are active, waiting
        for Apple's signature or expired. Another merchant account's wallet is a 404, like a missing one. Needs the
        `digital-wallets.read` scope.
        """
        return Response(DigitalWalletOutput(self.get_object()).data)

    @extend_schema(request=DigitalWalletUpdateInput, responses={200: DigitalWalletOutput})
    def update(self, request: Request, digital_wallet_id: str) -> Response:
        """Update digital wallet

        Changes the fields the body carries; a field left out stays as it is and null clears it (`merchant_name`
        and `domain_names` stay). `domain_names` replaces the list. The key pairs stay as they are. Needs the
        `digital-wallets.write` scope.
        """
        wallet = self.get_object()
        serializer = DigitalWalletUpdateInput(data=request.data)
        validated(serializer)
        digital_wallet_update(wallet=wallet, **serializer.changes())
        return Response(DigitalWalletOutput(self.get_object()).data)

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, digital_wallet_id: str) -> Response:
        """Delete digital wallet

        Removes the wallet and its key pairs: payments with its tokens can no longer be opened here. Needs the
        `digital-wallets.write` scope.
        """
        digital_wallet_delete(wallet=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=DigitalWalletDomainInput, responses={200: {"type": "object"}})
    def domain_add(self, request: Request, digital_wallet_id: str) -> Response:
        """Register a digital wallet domain

        Adds a website (`shop.example.com`: no scheme, port or path) the wallet's button may be shown on; adding one
        it has changes nothing. Apple Pay also needs the domain verified in the merchant's Apple Developer account.
        Needs the `digital-wallets.write` scope.
        """
        wallet = self.get_object()
        data = validated(DigitalWalletDomainInput(data=request.data))
        digital_wallet_domain_add(wallet=wallet, **data)
        return Response({})

    @extend_schema(request=DigitalWalletDomainInput, responses={204: None})
    def domain_remove(self, request: Request, digital_wallet_id: str) -> Response:
        """Remove a digital wallet domain

        Removes a website from the wallet. Needs the `digital-wallets.write` scope.

        404: The wallet does not have this domain.
        """
        wallet = self.get_object()
        data = validated(DigitalWalletDomainInput(data=request.data))
        digital_wallet_domain_remove(wallet=wallet, **data)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses={200: WalletKeyListOutput})
    def keys(self, request: Request, digital_wallet_id: str) -> Response:
        """List a digital wallet's key pairs

        An extension: the key pairs this server made for the wallet, each with its public key (base64 DER
        SubjectPublicKeyInfo, what Google's console takes), its certificate signing request for Apple (PEM), and the
        certificate Apple signed once it is uploaded, with its expiry. Never a private key. Needs the
        `digital-wallets.read` scope.
        """
        wallet = self.get_object()
        return Response(WalletKeyListOutput({"items": list(wallet.keys.all())}).data)

    @extend_schema(request=CertificateUploadInput, responses={200: WalletKeyOutput})
    def certificate_upload(self, request: Request, digital_wallet_id: str) -> Response:
        """Upload a certificate Apple signed

        An extension: takes back the certificate Apple signed for one of an Apple Pay wallet's certificate signing
        requests (the `.cer` file in base64, or PEM) and answers the key pair it belongs to. The certificate's
        public key must be one of the wallet's key pairs; the merchant identity certificate also gives the wallet
        its merchant identifier. Needs the `digital-wallets.write` scope.

        400: Not a certificate, not one of this wallet's key pairs, a merchant identity certificate naming no
        merchant identifier, or a Google Pay wallet (which takes none).
        """
        wallet = self.get_object()
        data = validated(CertificateUploadInput(data=request.data))
        key = digital_wallet_certificate_upload(wallet=wallet, **data)
        return Response(WalletKeyOutput(key).data)


class DigitalWalletSessionViewSet(RateLimitedMixin, viewsets.GenericViewSet[DigitalWallet]):
    """The wallets' session operations; those of wallets this server does not offer are refused by name."""

    queryset = DigitalWallet.objects.none()  # names the model for the schema
    scope_resource = "digital-wallets"
    action_scopes = {"apple": _SESSION_SCOPES, "google": _SESSION_SCOPES, "refused": _SESSION_SCOPES}
    # Per embed token, like every embed call (docs/rate-limits.md): a page cannot have Apple called without end.
    rate_limits = dict.fromkeys(_SESSION_ACTIONS, (EmbedTokenThrottle,))

    @extend_schema(request=ApplePaySessionInput, responses={200: {"type": "object", "additionalProperties": True}})
    def apple(self, request: Request) -> Response:
        """Create an Apple Pay session

        Validates the merchant with Apple for a payment sheet: calls `validation_url` (only one of Apple Pay's
        merchant validation hosts) over mutual TLS with the Apple Pay wallet's merchant identity certificate, for a
        `domain_name` the wallet lists, and answers Apple's merchant session as Apple gave it. Needs the
        `digital-wallets.write` or the `embed` scope.

        400: `validation_url` is not one of Apple's hosts, the domain is not the wallet's, or the merchant identity
        certificate has not been uploaded (or has expired).

        404: The merchant account has no Apple Pay wallet.

        502: Apple refused the validation, or could not be reached.

        504: Apple did not answer in time.
        """
        data = validated(ApplePaySessionInput(data=request.data))
        session = apple_pay_session_create(merchant_account=request_merchant_account(request), **data)
        return Response(session)

    @extend_schema(request=GooglePaySessionInput, responses={200: {"type": "object"}})
    def google(self, request: Request) -> Response:
        """Create a Google Pay session

        For a website (`origin_domain`) the Google Pay wallet lists: the merchant's id on this server
        (`gateway_merchant_id`) and a signed session token naming the wallet and the website. Needs the
        `digital-wallets.write` or the `embed` scope.

        400: The domain is not the wallet's.

        404: The merchant account has no Google Pay wallet.
        """
        data = validated(GooglePaySessionInput(data=request.data))
        session = google_pay_session_create(merchant_account=request_merchant_account(request), **data)
        return Response(session)

    @extend_schema(request=None, responses={200: {"type": "object"}})
    def refused(self, request: Request) -> Response:
        """Refused: Click to Pay and Paze sessions

        Not supported: this server registers Apple Pay and Google Pay wallets only, so a Click to Pay or Paze
        session is always a 400 naming the wallet. Needs the `digital-wallets.write` or the `embed` scope.
        """
        wallet = "Click to Pay" if "click-to-pay" in request.path else "Paze"
        raise DomainError(
            f"{request.method} {request.path}: {wallet} is not supported by this server (it offers Apple Pay and "
            "Google Pay)."
        )

"""The sandbox's 3-D Secure server: what the issuer answers for one payment, and the result the processor is given.

`authenticate(...)` is the one decision: the account's matching scenario, else the default test cards
(docs/test-cards.md), else a frictionless `Y`. It reads no transaction and writes nothing, so a payment is decided
before anything about it is written. A real 3DS server would replace this module (docs/three-d-secure.md).
"""

from __future__ import annotations

import hashlib
import uuid
from base64 import b64encode
from dataclasses import dataclass
from typing import Any

from payments.accounts.models import MerchantAccount
from payments.connectors import ThreeDSecureData
from threedsecure.models import AuthenticationStatus, ChallengeResult
from threedsecure.scenarios import ScenarioOutcome
from threedsecure.selectors import scenario_matching

A = AuthenticationStatus
DEFAULT_VERSION = "2.2.0"
# What the issuer does for a card no scenario names and no test card lists: authenticates it without a challenge.
FRICTIONLESS = ScenarioOutcome(authentication=A.AUTHENTICATED, version=DEFAULT_VERSION)

# The default test cards (docs/test-cards.md): one per outcome, used when no scenario of the account matches.
TEST_CARDS: dict[str, ScenarioOutcome] = {
    "4000000000003055": FRICTIONLESS,
    "4000000000003014": ScenarioOutcome(authentication=A.ATTEMPTED, version=DEFAULT_VERSION),
    "4000000000003022": ScenarioOutcome(authentication=A.NOT_AUTHENTICATED, version=DEFAULT_VERSION),
    "4000000000003030": ScenarioOutcome(authentication=A.REJECTED, version=DEFAULT_VERSION),
    "4000000000003048": ScenarioOutcome(authentication=A.UNAVAILABLE, version=DEFAULT_VERSION),
    "4000000000003006": ScenarioOutcome(authentication=A.TIMEOUT, version=DEFAULT_VERSION),
    "4000000000003220": ScenarioOutcome(
        authentication=A.CHALLENGE, version=DEFAULT_VERSION, result=ChallengeResult.AUTHENTICATED
    ),
    "4000000000003238": ScenarioOutcome(
        authentication=A.CHALLENGE, version=DEFAULT_VERSION, result=ChallengeResult.NOT_AUTHENTICATED
    ),
    "4000000000003063": ScenarioOutcome(
        authentication=A.CHALLENGE, version=DEFAULT_VERSION, result=ChallengeResult.TIMEOUT
    ),
}

# The electronic commerce indicator the schemes give an authenticated (`Y`) and an attempted (`A`) payment.
_ECI: dict[str, dict[str, str]] = {
    "mastercard": {"Y": "02", "A": "01"},
    "maestro": {"Y": "02", "A": "01"},
}
_ECI_DEFAULT = {"Y": "05", "A": "06"}  # Visa, American Express, JCB, Discover, and every other scheme
# What an issuer's 3DS answer means for the payment.
_PROCEEDS = frozenset({A.AUTHENTICATED, A.ATTEMPTED})
_REFUSED = frozenset({A.NOT_AUTHENTICATED, A.REJECTED})
_UNAVAILABLE = frozenset({A.UNAVAILABLE, A.TIMEOUT})
# EMV 3DS error 402, "transaction timed out", raised by the 3DS server (component `S`).
TIMEOUT_ERROR = {
    "code": "402",
    "description": "Transaction timed out",
    "detail": "The directory server gave no answer in time.",
    "component": "S",
}


@dataclass(frozen=True)
class Authentication:
    """What the issuer answered for one payment: `status` is the EMV `transStatus` (or `timeout`); a challenge
    (`C`) also says how it will end (`result`)."""

    status: str
    version: str
    scheme: str | None
    result: str | None = None

    @property
    def challenge(self) -> bool:
        return self.status == A.CHALLENGE

    @property
    def refused(self) -> bool:
        return self.status in _REFUSED

    def summary(self, *, reference: str, amount: int) -> dict[str, Any]:
        """Upstream's `three_d_secure` summary of a frictionless answer (a challenge's comes with its end)."""
        return authentication_summary(
            status=self.status,
            version=self.version,
            scheme=self.scheme,
            reference=reference,
            challenged=False,
            amount=amount,
        )


def authenticate(
    *,
    merchant_account: MerchantAccount,
    amount: int,
    card_number: str,
    scheme: str | None,
    email_address: str | None = None,
    first_name: str | None = None,
    last_name: str | None = None,
    external_identifier: str | None = None,
) -> Authentication:
    """What the sandbox issuer answers: the matching scenario's outcome, else the test card's, else frictionless Y."""
    outcome = scenario_matching(
        merchant_account=merchant_account,
        amount=amount,
        card_number=card_number,
        email_address=email_address,
        first_name=first_name,
        last_name=last_name,
        external_identifier=external_identifier,
    ) or TEST_CARDS.get(card_number, FRICTIONLESS)
    return Authentication(
        status=outcome.authentication, version=outcome.version or DEFAULT_VERSION, scheme=scheme, result=outcome.result
    )


def _sandbox_value(reference: str, purpose: str, size: int) -> bytes:
    """Bytes derived from our reference: the same payment always gets the same sandbox CAVV and ids."""
    return hashlib.sha256(f"{purpose}:{reference}".encode()).digest()[:size]


def three_d_secure_data(
    *, status: str, version: str, scheme: str | None, reference: str, challenged: bool
) -> ThreeDSecureData:
    """The result a processor is given for an authenticated (`Y`) or attempted (`A`) payment: a sandbox CAVV (20
    bytes, base64, as real ones), the scheme's ECI and the directory server's transaction id."""
    eci = _ECI.get(scheme or "", _ECI_DEFAULT)[status]
    return ThreeDSecureData(
        version=version,
        cavv=b64encode(_sandbox_value(reference, "cavv", 20)).decode(),
        eci=eci,
        directory_response=A.CHALLENGE if challenged else status,
        authentication_response=status if challenged else None,
        directory_transaction_id=str(uuid.UUID(bytes=_sandbox_value(reference, "ds-transaction", 16), version=4)),
        scheme=scheme,
    )


def authentication_summary(
    *, status: str, version: str, scheme: str | None, reference: str, challenged: bool, amount: int
) -> dict[str, Any]:
    """Upstream's `three_d_secure` summary of an authentication this server ran: `complete` with the result given to
    the processor for `Y`/`A`; `declined` for `N`/`R`; `error` for `U` and a timeout (upstream keeps no response data
    for those; a timeout says why in `error_data`)."""
    data = None
    if status in _PROCEEDS:
        data = three_d_secure_data(
            status=status, version=version, scheme=scheme, reference=reference, challenged=challenged
        )
    summary_status = "complete" if status in _PROCEEDS else "declined" if status in _REFUSED else "error"
    return {
        "version": version,
        "status": summary_status,
        "method": "challenge" if challenged else "frictionless",
        "response_data": {name: value for name, value in vars(data).items() if value is not None} if data else None,
        "error_data": TIMEOUT_ERROR if status == A.TIMEOUT else None,
        "amount": amount,
    }


def proceeds_without_liability_shift(status: str) -> bool:
    """`U` and a timeout: the issuer could not authenticate; the payment goes on without 3-D Secure (docs)."""
    return status in _UNAVAILABLE

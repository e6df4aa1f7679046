"""The sandbox answers its disputes (for demos and tests): an acceptance is accepted, a defence is under review, and
a dispute whose id ends in `_refuse` is refused, as a processor refuses an answer it will not take."""

from __future__ import annotations

from collections.abc import Mapping

from paymentservices.processors.seam import AnswerOutcome, DisputeAnswer, DisputeAnswers, Evidence

REFUSED_SUFFIX = "_refuse"
REFUSAL = "the sandbox refuses answers to this dispute"


class SandboxDisputes(DisputeAnswers):
    # The documents most processors take (Stripe's, Adyen's), within both their limits.
    file_types = frozenset({"application/pdf", "image/jpeg", "image/png"})
    max_file_bytes = 2 * 1024 * 1024
    max_files = 5

    def accept(self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str) -> DisputeAnswer:
        return self._answer(dispute_id, AnswerOutcome.ACCEPTED)

    def defend(
        self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str, evidence: Evidence
    ) -> DisputeAnswer:
        return self._answer(dispute_id, AnswerOutcome.UNDER_REVIEW)

    @staticmethod
    def _answer(dispute_id: str, outcome: str) -> DisputeAnswer:
        if dispute_id.endswith(REFUSED_SUFFIX):
            return DisputeAnswer(AnswerOutcome.REFUSED, REFUSAL)
        return DisputeAnswer(outcome)

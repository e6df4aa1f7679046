"""The desk's form to answer a dispute: accept it, or defend it with words, a document and (for a processor that asks
for one) its defence reason. What the processor takes is checked by the service, the one place its rules live."""

from __future__ import annotations

from typing import Any

from django import forms

from disputes.models import DisputeAnswer
from disputes.sandbox import REASONS
from payments.choices import EvidenceKind
from paymentservices.processors.seam import Evidence, EvidenceFile


class DisputeAnswerForm(forms.Form):
    action = forms.ChoiceField(
        choices=DisputeAnswer.Action.choices,
        widget=forms.RadioSelect,
        help_text="Accept: the buyer keeps the money. Defend: the evidence below goes to the bank.",
    )
    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        label="Evidence",
        help_text="What the merchant says in defence (sent as written).",
    )
    document = forms.FileField(required=False, help_text="A document that backs it (PDF or image).")
    kind = forms.ChoiceField(
        required=False,
        choices=EvidenceKind.choices,
        initial=EvidenceKind.OTHER,
        label="The document shows",
        help_text="A processor with evidence types of its own is told it in its own type.",
    )
    reason = forms.CharField(
        required=False,
        max_length=100,
        help_text="The processor's defence reason code, when it asks for one (one of its own codes).",
    )

    def evidence(self) -> Evidence | None:
        """The evidence of a defence (None for an acceptance)."""
        data: dict[str, Any] = self.cleaned_data
        if data["action"] != DisputeAnswer.Action.DEFEND:
            return None
        upload = data.get("document")
        files = (
            (
                EvidenceFile(
                    upload.name,
                    upload.content_type or "application/octet-stream",
                    upload.read(),
                    data.get("kind") or EvidenceKind.OTHER,
                ),
            )
            if upload
            else ()
        )
        return Evidence(text=data.get("text") or "", files=files, reason=(data.get("reason") or "").strip() or None)


class SandboxDisputeForm(forms.Form):
    """The desk's form to open a test dispute on a sandbox payment (disputes.sandbox)."""

    transaction = forms.UUIDField(label="Transaction ID", help_text="A captured payment through the sandbox.")
    amount = forms.IntegerField(
        required=False, min_value=1, help_text="In minor units (cents for USD). Left empty: the whole captured amount."
    )
    reason = forms.ChoiceField(choices=[(reason, reason.replace("_", " ").capitalize()) for reason in REASONS])

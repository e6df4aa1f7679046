"""What a processor takes of the evidence of a defence, checked before anything is sent (docs/disputes.md): the text's
length, how many documents, each one's size and type. A document's type is the one its bytes show (their first
bytes, as each format begins), not only the one it claims, so a file named `.pdf` that is not one is refused here
rather than by the processor after the rest was sent."""

from __future__ import annotations

from dataclasses import dataclass

from paymentservices.processors.seam import DisputeAnswers, Evidence

# How each media type a processor may take begins (its "magic" bytes).
SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "application/pdf": (b"%PDF-",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/tiff": (b"II*\x00", b"MM\x00*"),
}


@dataclass(frozen=True)
class EvidenceRefusal:
    """Why the evidence is refused, and where in the request (a JSON pointer: `/text`, `/files/0/content`)."""

    pointer: str
    message: str


def evidence_refusal(evidence: Evidence, answers: DisputeAnswers) -> EvidenceRefusal | None:
    """None when the processor takes `evidence` as it is; else the first thing it would refuse."""
    if not evidence.text.strip() and not evidence.files:
        return EvidenceRefusal("/text", "A defence needs words or documents: both are empty.")
    if evidence.reason and not answers.takes_reason:
        return EvidenceRefusal("/reason", "The processor takes no defence reason: leave it out.")
    if evidence.text and not answers.max_text:
        return EvidenceRefusal("/text", "The processor takes no text: its defence is documents.")
    if len(evidence.text) > answers.max_text:
        return EvidenceRefusal("/text", f"The processor takes at most {answers.max_text} characters of text.")
    if len(evidence.files) > answers.max_files:
        return EvidenceRefusal("/files", f"The processor takes at most {answers.max_files} documents.")
    taken = ", ".join(sorted(answers.file_types))
    for position, file in enumerate(evidence.files):
        if not file.content:
            return EvidenceRefusal(f"/files/{position}/content", "The document is empty.")
        if file.content_type not in answers.file_types:
            return EvidenceRefusal(
                f"/files/{position}/content_type",
                f"The processor does not take {file.content_type} documents; it takes {taken}.",
            )
        if not file.content.startswith(SIGNATURES.get(file.content_type, (b"",))):
            return EvidenceRefusal(f"/files/{position}/content", f"The document's content is not {file.content_type}.")
        if len(file.content) > answers.max_file_bytes:
            return EvidenceRefusal(
                f"/files/{position}/content",
                f"The document is {len(file.content)} bytes; the processor takes at most {answers.max_file_bytes}.",
            )
    refused = answers.evidence_refused(evidence)
    return EvidenceRefusal(*refused) if refused else None

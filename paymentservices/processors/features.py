"""The features a card processor's definition starts from (`Processor.features`); each processor changes what it
does otherwise."""

from __future__ import annotations

CARD_FEATURES: dict[str, bool] = {
    "delayed_capture": True,
    "partial_capture": True,
    # Several captures of one authorization (`final: false` until the last) and raising an authorization's amount
    # (`POST /transactions/{id}/authorization/increment`): the processors that can say so.
    "multiple_captures": False,
    "incremental_authorization": False,
    "void": True,
    "refunds": True,
    "partial_refunds": True,
    "transaction_sync": True,
    "network_tokens": False,
    "payment_method_tokenization": False,
    "three_d_secure_hosted": False,
    "three_d_secure_pass_through": False,
    # Money sent to a card (`Processor.payouts`): the processors that can say so.
    "payouts": False,
}

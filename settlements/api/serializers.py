"""Upstream's ledger records: `Settlement`, `RefundSettlement`, `Chargeback` and `ChargebackReversal`, one shape."""

from __future__ import annotations

from rest_framework import serializers

from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer
from settlements.models import EntryKind, LedgerEntry


class _LedgerRecordOutput(OutputSerializer):
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    created_at = TimestampField()
    updated_at = TimestampField()
    posted_at = TimestampField()
    ingested_at = TimestampField(source="created_at")
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    exchange_rate = serializers.FloatField(allow_null=True)
    commission = serializers.IntegerField()
    interchange = serializers.IntegerField(allow_null=True)
    markup = serializers.IntegerField(allow_null=True)
    scheme_fee = serializers.IntegerField(allow_null=True)
    payment_service_report_id = serializers.UUIDField(source="report_id")
    payment_service_report_file_ids = serializers.SerializerMethodField()
    transaction_id = serializers.UUIDField()

    def get_payment_service_report_file_ids(self, entry: LedgerEntry) -> list[str]:
        return [str(entry.file_id)]


class SettlementOutput(_LedgerRecordOutput):
    type = ConstantField(EntryKind.SETTLEMENT.value)


class RefundSettlementOutput(_LedgerRecordOutput):
    type = ConstantField(EntryKind.REFUND_SETTLEMENT.value)
    refund_id = serializers.UUIDField()


class ChargebackOutput(_LedgerRecordOutput):
    type = ConstantField(EntryKind.CHARGEBACK.value)


class ChargebackReversalOutput(_LedgerRecordOutput):
    type = ConstantField(EntryKind.CHARGEBACK_REVERSAL.value)


class SettlementsOutput(OutputSerializer):
    items = SettlementOutput(many=True)


class RefundSettlementsOutput(OutputSerializer):
    items = RefundSettlementOutput(many=True)


class ChargebacksOutput(OutputSerializer):
    items = ChargebackOutput(many=True)


class ChargebackReversalsOutput(OutputSerializer):
    items = ChargebackReversalOutput(many=True)

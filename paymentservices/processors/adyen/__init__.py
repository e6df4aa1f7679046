"""Adyen: card payments through Adyen's Checkout API with Adyen's official library, its standard webhooks
(docs/payment-services.md), and the reports they announce (reports.py, docs/reconciliation.md)."""

from paymentservices.processors.adyen.connector import AdyenConnector
from paymentservices.processors.adyen.processor import AdyenProcessor
from paymentservices.processors.adyen.reports import ReportUnread, report_download, report_url_allowed

PROCESSOR = AdyenProcessor()

__all__ = ["PROCESSOR", "AdyenConnector", "ReportUnread", "report_download", "report_url_allowed"]

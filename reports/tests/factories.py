import factory
from factory.django import DjangoModelFactory

from payments.tests.factories import MerchantAccountFactory
from reports.models import Report, ReportExecution


class ReportFactory(DjangoModelFactory[Report]):
    class Meta:
        model = Report

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    name = factory.Sequence(lambda n: f"Report {n}")
    schedule = "once"
    schedule_enabled = True
    schedule_timezone = "Etc/UTC"
    model = "transactions"
    params = factory.LazyFunction(lambda: {"fields": None, "filters": {}})


class ReportExecutionFactory(DjangoModelFactory[ReportExecution]):
    class Meta:
        model = ReportExecution

    report = factory.SubFactory(ReportFactory)
    reference_timestamp = factory.Faker("date_time_this_year", tzinfo=__import__("datetime").UTC)
    reference_timezone = "Etc/UTC"

from django.urls import path

from payments.rest.routers import ApiRouter
from reports.api.views import ReportDownloadView, ReportExecutionsOfReportViewSet, ReportExecutionViewSet, ReportViewSet

router = ApiRouter()
router.register("reports", ReportViewSet, basename="report")
router.register("report-executions", ReportExecutionViewSet, basename="report-execution")

urlpatterns = [
    *router.urls,
    path(
        "reports/<str:report_id>/executions",
        ReportExecutionsOfReportViewSet.as_view({"get": "list"}),
        name="report-executions-of-report",
    ),
    path(
        "reports/<str:report_id>/executions/<str:report_execution_id>/url",
        ReportExecutionsOfReportViewSet.as_view({"post": "url"}),
        name="report-execution-url",
    ),
    path("report-downloads/<str:token>", ReportDownloadView.as_view(), name="report-download"),
]

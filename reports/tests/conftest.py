import pytest


@pytest.fixture(autouse=True)
def _report_storage(settings, tmp_path):
    """Each test's files in its own folder."""
    settings.STORAGES = {
        **settings.STORAGES,
        "reports": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}},
    }
    from django.core.files.storage import storages

    storages._storages.pop("reports", None)
    yield
    storages._storages.pop("reports", None)

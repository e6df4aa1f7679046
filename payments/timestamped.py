"""The timestamps every resource table shares."""

from django.db import models


class TimestampedModel(models.Model):
    """Creation and update times shared by every resource; lists page on `(created_at, id)`."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

"""Who an enumeration limit refused, for support."""

from django.db import models

from payments.accounts.models import MerchantAccount


class RateLimitEvent(models.Model):
    """A subject refused by an enumeration limit, written once per subject, endpoint and window.

    For support staff: who was limited, where and when. The limit that refused names the kind of subject and
    what may be shown of it (`subject_label`, never a secret); `subject_key` (a keyed hash of the counter key,
    payments.ratelimits.records) keeps one row per window.
    """

    subject_kind = models.CharField(max_length=32, help_text="What the limit counts, as the limit names it.")
    subject_key = models.CharField(max_length=64, editable=False)
    subject_label = models.CharField(max_length=255, blank=True, help_text="What support may see of the subject.")
    merchant_account = models.ForeignKey(
        MerchantAccount,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="rate_limit_events",
        db_index=False,
    )
    endpoint = models.CharField(max_length=255)
    rate = models.CharField(max_length=32, help_text="The limit in force, e.g. 50/m.")
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subject_kind", "subject_key", "endpoint", "window_start"], name="rate_limit_event_once"
            ),
        ]
        indexes = [models.Index(fields=["merchant_account", "-created_at"], name="rate_limit_event_account")]

    def __str__(self) -> str:
        return f"{self.subject_kind} {self.subject_label} on {self.endpoint}"

"""Rate-limit records name their subject generically: one `subject_label` instead of a column per kind."""

from django.db import migrations, models


def _labels_forward(apps, schema_editor):
    RateLimitEvent = apps.get_model("payments", "RateLimitEvent")
    for event in RateLimitEvent.objects.all().iterator():
        if event.gift_card_last4:
            event.subject_label = f"ending {event.gift_card_last4}"
        else:
            event.subject_label = event.token_id or event.checkout_session_id
        event.save(update_fields=["subject_label"])


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0005_idempotency_body_as_sent"),
    ]

    operations = [
        migrations.AddField(
            model_name="ratelimitevent",
            name="subject_label",
            field=models.CharField(blank=True, help_text="What support may see of the subject.", max_length=255),
        ),
        migrations.RunPython(_labels_forward, migrations.RunPython.noop),
        migrations.RemoveField(model_name="ratelimitevent", name="token_id"),
        migrations.RemoveField(model_name="ratelimitevent", name="checkout_session_id"),
        migrations.RemoveField(model_name="ratelimitevent", name="gift_card_last4"),
        migrations.AlterField(
            model_name="ratelimitevent",
            name="subject_kind",
            field=models.CharField(help_text="What the limit counts, as the limit names it.", max_length=32),
        ),
    ]

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0017_sandbox_increments"),
    ]

    operations = [
        migrations.AlterField(
            model_name="sandboxoperation",
            name="operation",
            field=models.CharField(
                choices=[
                    ("authorization", "Authorization"),
                    ("capture", "Capture"),
                    ("void", "Void"),
                    ("refund", "Refund"),
                    ("increment", "Increment"),
                    ("payout", "Payout"),
                ],
                max_length=16,
            ),
        ),
    ]

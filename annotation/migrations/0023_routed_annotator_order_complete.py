from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0022_one_reservation_per_annotator"),
    ]

    operations = [
        # The annotators routed before this migration have their whole order stored: True for
        # them, then False, the default of those who join from now on.
        migrations.AddField(
            model_name="routedannotator",
            name="order_complete",
            field=models.BooleanField(default=True, verbose_name="whole order stored"),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="routedannotator",
            name="order_complete",
            field=models.BooleanField(default=False, verbose_name="whole order stored"),
        ),
    ]

"""A dataset's subtask is any key of the scorer's registry: the check constraint and the choices
that listed the six keys are dropped (the import service refuses an unknown key), so adding a
subtask needs no migration."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0013_stored_report_started"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="dataset", name="dataset_subtask_known"),
        migrations.AlterField(
            model_name="dataset",
            name="subtask",
            field=models.CharField(max_length=20, verbose_name="subtask"),
        ),
    ]

"""The two roles, as groups: editors propose changes, moderators review and apply."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

ROLES = {
    "editors": ["propose"],
    "moderators": ["propose", "curate", "moderate"],
}


def create_roles(apps, schema_editor) -> None:
    # Permissions are made after migrations run; these groups need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codenames in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        group.permissions.set(
            Permission.objects.filter(content_type__app_label="clusters", codename__in=codenames)
        )


def remove_roles(apps, schema_editor) -> None:
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("clusters", "0004_moderation"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]

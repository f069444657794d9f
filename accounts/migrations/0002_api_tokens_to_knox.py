"""API tokens move to django-rest-knox's table (accounts.tokens), which keeps a digest of each
key: DRF's authtoken table, which kept the keys themselves, goes.

Its tokens carry on as knox tokens (the digest of the same key, so scripts stay logged in),
expiring TOKEN_TTL_DAYS from now unless they are used; then the table is dropped, with the
record of its app's migrations (the app is no longer installed: should it ever come back, its
migrations make the table anew). A database that never had the table is left alone. Going
back does not bring the table back: the keys are no longer known.
"""

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone

OLD_TABLE = "authtoken_token"


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    q = schema_editor.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {q('key')}, {q('user_id')} FROM {q(OLD_TABLE)}")
        rows = cursor.fetchall()
    AuthToken = apps.get_model("knox", "AuthToken")
    expiry = timezone.now() + timedelta(days=settings.TOKEN_TTL_DAYS)
    AuthToken.objects.using(connection.alias).bulk_create(
        [
            # knox's hash (knox.crypto.hash_token), written out: a migration must not change
            # with the library.
            AuthToken(
                digest=hashlib.sha512(key.encode()).hexdigest(),
                token_key=key[:15],
                user_id=user_id,
                expiry=expiry,
            )
            for key, user_id in rows
        ],
        batch_size=1000,
    )
    schema_editor.execute(f"DROP TABLE {q(OLD_TABLE)}")
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM django_migrations WHERE app = %s", ["authtoken"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]

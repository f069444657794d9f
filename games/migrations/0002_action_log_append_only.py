"""The action log is append-only at the database level: UPDATE, DELETE (and TRUNCATE on
PostgreSQL) on games_action are refused by triggers.

Escape hatch, for test databases only (flush empties every table): on PostgreSQL the setting
`klondike.allow_log_rewrite = 'on'` in the session; on SQLite the SQL function
`klondike_allow_log_rewrite()` returning 1 (`games.db` registers it per connection).
"""

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION games_action_append_only() RETURNS trigger AS $$
BEGIN
    IF current_setting('klondike.allow_log_rewrite', true) = 'on' THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'games_action is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_action_no_update_delete BEFORE UPDATE OR DELETE ON games_action
    FOR EACH ROW EXECUTE FUNCTION games_action_append_only();
CREATE TRIGGER games_action_no_truncate BEFORE TRUNCATE ON games_action
    FOR EACH STATEMENT EXECUTE FUNCTION games_action_append_only();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS games_action_no_truncate ON games_action;
DROP TRIGGER IF EXISTS games_action_no_update_delete ON games_action;
DROP FUNCTION IF EXISTS games_action_append_only();
"""
SQLITE_FORWARD = [
    """CREATE TRIGGER games_action_no_update BEFORE UPDATE ON games_action
       WHEN NOT klondike_allow_log_rewrite()
       BEGIN SELECT RAISE(ABORT, 'games_action is append-only: UPDATE refused'); END""",
    """CREATE TRIGGER games_action_no_delete BEFORE DELETE ON games_action
       WHEN NOT klondike_allow_log_rewrite()
       BEGIN SELECT RAISE(ABORT, 'games_action is append-only: DELETE refused'); END""",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS games_action_no_update",
    "DROP TRIGGER IF EXISTS games_action_no_delete",
]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_FORWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_BACKWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]

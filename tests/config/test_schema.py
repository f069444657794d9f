"""The OpenAPI schema validates without a warning, and is served with its Swagger UI."""

from __future__ import annotations

import pytest
from django.core.management import call_command


def test_spectacular_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))
    assert "/api/v1/auth/register" in (tmp_path / "s.yml").read_text()


@pytest.mark.django_db
def test_schema_and_docs_are_served(client):
    schema = client.get("/api/v1/schema/")
    assert schema.status_code == 200
    assert b"openapi" in schema.content
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()
    assert b"cdn.jsdelivr" not in docs.content  # assets are served locally (sidecar)

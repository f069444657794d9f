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


# What the schema left out (issue #37, "The schema is not the contract"), each now in it.


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _op(schema, method, path):
    return schema["paths"][path][method]


def _component(schema, ref_holder):
    return schema["components"]["schemas"][ref_holder["$ref"].rsplit("/", 1)[1]]


def _parameter(operation, name):
    return next(p for p in operation["parameters"] if p["name"] == name)


def test_every_operation_lists_its_error_statuses(schema):
    actions = _op(schema, "post", "/api/v1/games/{game_id}/actions")["responses"]
    assert {"400", "401", "403", "404", "406", "409", "413", "415", "422", "429"} <= set(actions)
    hint = _op(schema, "get", "/api/v1/games/{game_id}/hint")["responses"]
    assert "game_over" in hint["409"]["x-error-codes"]
    for path in ("/api/v1/games/{game_id}", "/api/v1/users/{username}", "/api/v1/daily/{day}"):
        assert "404" in _op(schema, "get", path)["responses"], path
    assert "401" in _op(schema, "get", "/api/v1/me")["responses"]


def test_constraints(schema):
    day = _parameter(_op(schema, "get", "/api/v1/daily/{day}"), "day")
    assert day["schema"] == {"type": "string", "format": "date"}
    for method, path in (
        ("get", "/api/v1/games"),
        ("get", "/api/v1/leaderboards/daily/{day}/{mode}"),
    ):
        page = _parameter(_op(schema, method, path), "page")
        assert page["schema"] == {"type": "integer", "minimum": 1, "maximum": 10_000_000}, path
    mode = _parameter(_op(schema, "post", "/api/v1/daily/{day}/{mode}/start"), "mode")
    assert "D1N" in mode["schema"]["enum"]
    components = schema["components"]["schemas"]
    assert components["DrawEnum"]["enum"] == [1, 3]
    assert components["PresetEnum"]["enum"] == ["N", "V", "C", "R"]
    assert "t7" in components["PileEnum"]["enum"]
    username = components["RegisterRequest"]["properties"]["username"]
    assert username["pattern"] and username["maxLength"] == 30


def test_bodies_of_several_shapes_are_a_one_of(schema):
    start = _op(schema, "post", "/api/v1/games")["requestBody"]
    assert start["required"]
    shapes = _component(schema, start["content"]["application/json"]["schema"])["oneOf"]
    assert len(shapes) == 2
    actions = _op(schema, "post", "/api/v1/games/{game_id}/actions")["requestBody"]
    one_of = _component(schema, actions["content"]["application/json"]["schema"])
    assert one_of["discriminator"]["propertyName"] == "action"
    move = schema["components"]["schemas"]["MoveActionRequest"]
    assert set(move["required"]) == {"seq", "action", "from", "to"}
    assert move["additionalProperties"] is False


def test_replay_and_statuses_are_typed(schema):
    replay = schema["components"]["schemas"]["Replay"]["properties"]
    assert replay["deal"]["allOf"] == [{"$ref": "#/components/schemas/Deal"}]
    assert replay["analysis"]["allOf"] == [{"$ref": "#/components/schemas/Analysis"}]
    result = schema["components"]["schemas"]["ReplayResult"]["properties"]
    assert result["status"] == {"$ref": "#/components/schemas/GameStatusEnum"}


def test_content_types_and_headers(schema):
    export = _op(schema, "get", "/api/v1/games/export")["responses"]["200"]
    assert list(export["content"]) == ["application/x-ndjson"]
    login = _op(schema, "post", "/api/v1/auth/login")
    assert "Retry-After" in login["responses"]["429"]["headers"]
    assert "Retry-After" in login["responses"]["503"]["headers"]
    names = {p["name"] for p in _op(schema, "post", "/api/v1/games")["parameters"]}
    assert {"Accept-Language", "X-CSRFToken"} <= names

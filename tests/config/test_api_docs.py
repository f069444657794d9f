"""docs/api.md and the OpenAPI schema say the same thing: the paths, the statuses and error codes
of each endpoint's row, and the table of error codes, which is also every error the code can
raise."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from config.errors import _DRF_CODES, ERROR_CODES, ApplicationError

DOC = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
# A row of an endpoint table: | `METHOD /api/v1/...` | ... |
ROW = re.compile(r"^\| `([A-Z]+) (/api/v1/[^`?]*)[^`]*` \|(.*)$", re.MULTILINE)
# A row of the error-code table: | `code` | status | when |
CODE_ROW = re.compile(r"^\s*\| `([a-z_]+)` \| (\d{3}) \|", re.MULTILINE)
STATUS = re.compile(r"(?<![\w.$-])([1-5]\d\d)(?![\w%-]|\.\d)")


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def _doc_form(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def _operation(schema, method: str, path: str):
    for schema_path, operations in schema["paths"].items():
        if _doc_form(schema_path) == _doc_form(path):
            return operations.get(method.lower())
    return None


def test_every_schema_path_is_documented(schema):
    documented = {_doc_form(p) for p in re.findall(r"`[A-Z]+ (/api/v1/[^`? ]*)", DOC)}
    missing = [
        path
        for path in schema["paths"]
        if _doc_form(path) not in documented and not path.startswith("/api/v1/schema")
    ]
    assert not missing, f"add these to docs/api.md: {missing}"


def test_the_error_code_table_is_the_registry():
    assert dict(CODE_ROW.findall(DOC)) == {
        code: str(status) for code, (status, _) in ERROR_CODES.items()
    }


def test_the_schema_enum_is_the_registry(schema):
    assert schema["components"]["schemas"]["ErrorCodeEnum"]["enum"] == list(ERROR_CODES)


def _leaves(cls: type) -> list[type]:
    below = cls.__subclasses__()
    return [leaf for sub in below for leaf in _leaves(sub)] if below else [cls]


def test_every_error_the_code_raises_is_registered():
    for module in ("accounts.errors", "games.errors", "games.daily.errors"):
        importlib.import_module(module)
    raised = {(cls.code, cls.status_code) for cls in _leaves(ApplicationError)}
    raised |= {(ApplicationError.code, ApplicationError.status_code)}
    raised |= {(code, ERROR_CODES[code][0]) for code in _DRF_CODES.values()}
    registered = {(code, status) for code, (status, _) in ERROR_CODES.items()}
    assert raised <= registered, raised - registered


def test_each_endpoint_row_names_only_statuses_and_codes_the_schema_lists(schema):
    rows = ROW.findall(DOC)
    assert len(rows) >= 25
    problems = []
    for method, path, text in rows:
        operation = _operation(schema, method, path)
        if operation is None:
            problems.append(f"{method} {path}: not in the schema")
            continue
        responses = operation["responses"]
        for status in STATUS.findall(text):
            if status not in responses:
                problems.append(f"{method} {path}: {status} is not in the schema")
        for code in re.findall(r"`([a-z_]+)`", text):
            if code not in ERROR_CODES:
                continue
            status = str(ERROR_CODES[code][0])
            if code not in responses.get(status, {}).get("x-error-codes", []):
                problems.append(f"{method} {path}: {status} `{code}` is not in the schema")
    assert not problems, "\n".join(problems)


def test_every_error_response_is_the_shared_error_body_with_its_codes(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status < "400" or (path.endswith("/health") and status == "503"):
                    continue
                where = f"{method.upper()} {path} {status}"
                content = response["content"]["application/json"]["schema"]
                assert content == {"$ref": "#/components/schemas/Error"}, where
                codes = response["x-error-codes"]
                assert {ERROR_CODES[code][0] for code in codes} == {int(status)}, where
                if status in ("429", "503"):
                    assert response["headers"]["Retry-After"]["required"], where

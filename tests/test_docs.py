"""The docs cannot drift from the code: every file path and every code name they quote in
backticks exists (issue #38: `_token_check_sql` had been renamed, `frontend/i18n.js` moved)."""

from __future__ import annotations

import builtins
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
QUOTED = re.compile(r"`([^`\s]+)`")
PACKAGES = ("accounts", "bench", "config", "frontend", "games", "tests", "tools")
# A path of the repository: under one of its folders, or a file of a kind it holds.
PATH = re.compile(r"[\w.-]+(/[\w.-]+)+/?")
FOLDERS = (*PACKAGES, "docs", "locale", ".ci")
SUFFIXES = (".py", ".js", ".md", ".css", ".html", ".toml", ".yml", ".txt", ".po")
# A dotted name in a package of ours: games.daily.ranking.rank_key
DOTTED = re.compile(r"[a-z_]+(\.[A-Za-z_]\w*)+")
# A bare name that can only be code: snake_case with an underscore, or camelCase.
BARE = re.compile(r"_?[a-z]+(_[a-z0-9]+)+|_[a-z]\w*|[A-Z][a-z]+[A-Z]\w*|[a-z]+[A-Z]\w*")
SOURCES = ("*.py", "*.js", "*.html", "*.toml", "*.yml", "*.css", "*.txt", "*.in")
SKIP = {".venv", ".git", "var", "node_modules", "__pycache__", ".schemathesis"}


def _quoted() -> list[tuple[str, str]]:
    return [
        (doc.name, token.rstrip(".,:;"))
        for doc in DOCS
        for token in QUOTED.findall(doc.read_text())
    ]


def _source_words() -> set[str]:
    text = [
        (ROOT / name).read_text()
        for name in ("Makefile", "Dockerfile", ".ci/run", "docker-compose.yml", ".env.example")
        if (ROOT / name).exists()
    ]
    for pattern in SOURCES:
        for path in ROOT.rglob(pattern):
            if not SKIP.intersection(path.relative_to(ROOT).parts):
                text.append(path.read_text(errors="ignore"))
    return set(re.findall(r"\w+", "\n".join(text)))


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                found = getattr(found, name)
        except AttributeError:
            return False
        return True
    return False


def test_every_quoted_path_exists():
    missing = [
        f"{doc}: {token}"
        for doc, token in _quoted()
        if PATH.fullmatch(token)
        and (token.split("/")[0] in FOLDERS or token.endswith(SUFFIXES))
        and not (ROOT / token).exists()
    ]
    assert not missing, missing


def test_every_quoted_dotted_name_exists():
    missing = [
        f"{doc}: {token}"
        for doc, token in _quoted()
        if DOTTED.fullmatch(token) and token.split(".")[0] in PACKAGES and not _resolves(token)
    ]
    assert not missing, missing


def test_every_quoted_code_name_is_in_the_code():
    words = _source_words()
    missing = sorted(
        {
            f"{doc}: {token}"
            for doc, token in _quoted()
            if BARE.fullmatch(token) and token not in words and not hasattr(builtins, token)
        }
    )
    assert not missing, missing

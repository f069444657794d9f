from __future__ import annotations

import pytest

from games.engine import Rules


@pytest.mark.parametrize(
    ("draw", "preset", "expected"),
    [
        (
            1,
            "N",
            {"passes": None, "foundation_return": True, "auto_finish": False, "scoring": "normal"},
        ),
        (
            3,
            "N",
            {"passes": None, "foundation_return": True, "auto_finish": False, "scoring": "normal"},
        ),
        (
            1,
            "V",
            {"passes": 1, "foundation_return": True, "auto_finish": False, "scoring": "vegas"},
        ),
        (
            3,
            "V",
            {"passes": 1, "foundation_return": True, "auto_finish": False, "scoring": "vegas"},
        ),
        (
            1,
            "C",
            {"passes": 1, "foundation_return": False, "auto_finish": False, "scoring": "none"},
        ),
        (
            3,
            "C",
            {"passes": 3, "foundation_return": False, "auto_finish": False, "scoring": "none"},
        ),
        (
            1,
            "R",
            {"passes": None, "foundation_return": True, "auto_finish": True, "scoring": "none"},
        ),
        (
            3,
            "R",
            {"passes": None, "foundation_return": True, "auto_finish": True, "scoring": "none"},
        ),
    ],
)
def test_presets_rules_9(draw: int, preset: str, expected: dict[str, object]) -> None:
    r = Rules.from_preset(draw, preset)
    assert r.to_dict() == {"draw": draw, "preset": preset, **expected}
    assert list(r.to_dict()) == [
        "draw",
        "preset",
        "passes",
        "foundation_return",
        "auto_finish",
        "scoring",
    ]
    assert Rules.from_dict(r.to_dict()) == r


def test_bad_rules() -> None:
    with pytest.raises(ValueError, match="draw"):
        Rules.from_preset(2, "N")
    with pytest.raises(ValueError, match="preset"):
        Rules.from_preset(1, "X")
    with pytest.raises(ValueError, match="passes"):
        Rules(passes=0)

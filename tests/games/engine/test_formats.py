"""Notation, API JSON bodies and the public/full views."""

from __future__ import annotations

import json

import pytest

from games.engine import (
    DRAW,
    ActionDataError,
    Auto,
    Card,
    DoubleTap,
    Draw,
    GameState,
    Move,
    NotationError,
    Recycle,
    Resign,
    Rules,
    Tap,
    Undo,
    action_from_dict,
    action_to_dict,
    auto_from_dict,
    format_action,
    format_actions,
    from_full_view,
    full_view,
    parse_action,
    parse_actions,
    public_view,
)

EVERY_KIND = [
    (Draw(), "draw"),
    (Recycle(), "recycle"),
    (Undo(), "undo"),
    (Resign(), "resign"),
    (Move("t3", "t5"), "t3-t5"),
    (Move("t3", "t5", 2), "t3-t5x2"),
    (Move("waste", "f2"), "waste-f2"),
    (Move("f1", "t7"), "f1-t7"),
    (Move("t3", "f"), "t3-f"),
    (Move("t3", "t5", card=Card.parse("9H")), "t3-t5@9H"),
    (Tap("waste"), "tap waste"),
    (DoubleTap("t4"), "dtap t4"),
    (DoubleTap("t4", Card.parse("10C")), "dtap t4 10C"),
    (Auto(Move("t1", "f1")), "*t1-f1"),
    (Auto(Draw()), "*draw"),
    (Auto(Recycle()), "*recycle"),
]


@pytest.mark.parametrize(("action", "text"), EVERY_KIND)
def test_notation_round_trip(action: object, text: str) -> None:
    assert format_action(action) == text  # type: ignore[arg-type]
    assert parse_action(text) == action
    assert parse_action(text.upper()) == action
    assert parse_action(f"  {text}  ") == action


def test_notation_aliases_and_lines() -> None:
    assert parse_action("w-t2") == Move("waste", "t2")
    text = "# KL1-D1N-AAAAAAG\ndraw\n\nw-f3  # AD\n*t1-f1\n"
    acts = parse_actions(text)
    assert acts == [DRAW, Move("waste", "f3"), Auto(Move("t1", "f1"))]
    assert parse_actions(format_actions(acts)) == acts


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("jump", "not an action"),
        ("t8-t1", "unknown pile 't8'"),
        ("t1-t2x0", "count must be 1..13"),
        ("t1-t2x14", "count must be 1..13"),
        ("t1-t2@ZZ", "not a card"),
        ("tap", "tap <pile>"),
        ("tap f1", "waste or a column"),
        ("dtap t1 9H 8C", "dtap <pile>"),
        ("*undo", "automatic"),
        ("*t1-f", "automatic"),
    ],
)
def test_notation_errors(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_action(text)


def test_parse_actions_names_the_line() -> None:
    with pytest.raises(NotationError, match="line 2"):
        parse_actions("draw\nbogus\n")


# JSON -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "action"),
    [
        ({"seq": 12, "action": "draw"}, Draw()),
        ({"seq": 12, "action": "recycle"}, Recycle()),
        ({"seq": 12, "action": "undo"}, Undo()),
        ({"seq": 12, "action": "resign"}, Resign()),
        ({"seq": 12, "action": "move", "from": "t3", "to": "t5", "count": 2}, Move("t3", "t5", 2)),
        ({"action": "move", "from": "t3", "to": "t5"}, Move("t3", "t5", 1)),
        ({"action": "move", "from": "waste", "to": "f"}, Move("waste", "f")),
        (
            {"action": "move", "from": "t3", "to": "t5", "card": "9h"},
            Move("t3", "t5", card=Card.parse("9H")),
        ),
        ({"action": "tap", "from": "waste"}, Tap("waste")),
        ({"action": "double_tap", "from": "t3", "card": "9H"}, DoubleTap("t3", Card.parse("9H"))),
        ({"action": "double_tap", "from": "t3", "extra": [1]}, DoubleTap("t3")),
    ],
)
def test_action_from_dict(body: dict[str, object], action: object) -> None:
    assert action_from_dict(body) == action


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "JSON object"),
        ({}, "'action' is required"),
        ({"action": 3}, "'action' is required"),
        ({"action": "fly"}, "unknown action 'fly'"),
        ({"action": "move", "to": "t1"}, "'from' is required"),
        ({"action": "move", "from": "t1"}, "'to' is required"),
        ({"action": "move", "from": "t9", "to": "t1"}, "unknown pile 't9'"),
        ({"action": "move", "from": "t1", "to": "x"}, "unknown pile 'x'"),
        ({"action": "move", "from": 1, "to": "t1"}, "must be a pile name string"),
        ({"action": "move", "from": "t1", "to": "t2", "count": True}, "not bool"),
        ({"action": "move", "from": "t1", "to": "t2", "count": "2"}, "not str"),
        ({"action": "move", "from": "t1", "to": "t2", "count": 2.0}, "not float"),
        ({"action": "move", "from": "t1", "to": "t2", "count": 0}, "positive integer, not 0"),
        ({"action": "move", "from": "t1", "to": "t2", "count": -1}, "positive integer"),
        ({"action": "move", "from": "t1", "to": "t2", "count": 14}, "too large"),
        ({"action": "move", "from": "t1", "to": "t2", "card": 9}, "card name string"),
        ({"action": "move", "from": "t1", "to": "t2", "card": "1X"}, "not a card"),
        ({"action": "tap", "from": "f1"}, "unknown pile 'f1'"),
        ({"action": "tap"}, "'from' is required"),
        ({"action": "double_tap", "from": "stock"}, "unknown pile 'stock'"),
    ],
)
def test_action_from_dict_is_strict(body: object, message: str) -> None:
    with pytest.raises(ActionDataError, match=message):
        action_from_dict(body)


@pytest.mark.parametrize(("action", "_text"), EVERY_KIND)
def test_action_to_dict_round_trip(action: object, _text: str) -> None:
    d = action_to_dict(action)  # type: ignore[arg-type]
    assert json.loads(json.dumps(d)) == d
    assert auto_from_dict(d) == action


def test_action_to_dict_shapes() -> None:
    assert action_to_dict(Move("t3", "t5", 2)) == {
        "action": "move",
        "from": "t3",
        "to": "t5",
        "count": 2,
    }
    assert action_to_dict(Auto(Move("t1", "f1")))["auto"] is True
    assert action_to_dict(Draw()) == {"action": "draw"}


# views ----------------------------------------------------------------------------------


def test_public_view_shape_hides_face_down_cards_and_stock() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    g.apply(Draw())
    v = public_view(g)
    assert set(v) == {"stock", "waste", "foundations", "tableau"}
    assert v["stock"] == 23 and v["waste"] == ["QH"]
    assert v["tableau"][0] == ["AD"] and v["tableau"][1] == [None, "JC"]
    assert v["foundations"] == [[], [], [], []]
    text = json.dumps(v)
    hidden = [c for col in full_view(g)["tableau"] for c in col["down"]]
    for name in hidden + full_view(g)["stock"]:
        assert f'"{name}"' not in text


def test_full_view_round_trip() -> None:
    g = GameState.from_code("KL1-D3N-AAAAAAG")
    for a in (Draw(), Move("t1", "f3"), Draw()):
        g.apply(a)
    v = full_view(g)
    assert v["tableau"][0] == {"down": [], "up": []}
    assert v["foundations"][2] == ["AD"]
    g2 = from_full_view(v, Rules.from_preset(3, "N"), score=g.score)
    assert g2.position_key() == g.position_key() and g2.score == g.score
    assert g2.legal_moves() == g.legal_moves()


def test_from_full_view_rejects_bad_foundations() -> None:
    v = full_view(GameState.from_code("KL1-D1N-AAAAAAG"))
    v["foundations"][0] = ["2S"]
    with pytest.raises(ValueError, match="f1 must hold"):
        from_full_view(v, Rules())
    with pytest.raises(ValueError, match="malformed"):
        from_full_view({}, Rules())

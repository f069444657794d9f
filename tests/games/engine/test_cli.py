"""games/engine/cli.py: ``python -m games.engine show|replay|play|solve``, run in-process."""

from __future__ import annotations

import doctest
import io
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import games.engine
from games.engine import DealCode, GameState, cli, full_view, replay
from games.engine.cli import main, render_board

ROOT = Path(__file__).resolve().parents[3]
CODE = "KL1-D1N-AAAAAAG"

# A won game of KL1-D3N-AAAAAAG (139 actions, found once with games.engine.solver, then pinned).
WON_CODE = "KL1-D3N-AAAAAAG"
WON_TEXT = """
t1-f3 t7-f2 t6-t7 t5-t4 t6-t1 draw waste-f1 draw draw waste-t6 draw draw draw draw draw
recycle draw draw draw draw draw waste-f3 draw waste-f4 waste-t2 draw waste-t2 draw
waste-t5 t6-t5x2 recycle draw waste-t3 draw draw draw draw draw recycle draw waste-f1
t7-f1 t5-f1 draw draw draw draw draw recycle draw waste-f4 draw draw draw draw recycle
draw draw draw draw waste-f1 waste-t4 t5-t4x3 draw waste-t3 t4-t3x6 t4-t2 t4-t5 t5-t4x2
waste-t6 f1-t5 t7-t5 f1-t3 recycle draw waste-t3 waste-t7 waste-t1 t6-t1x2 t7-t6x2 t7-t2
t2-t7x5 t2-f2 t3-f2 t3-t2x10 t3-f3 t2-f1 t5-t7x3 t7-f3 t4-f3 t7-f1 t4-f1 draw waste-f2
t2-f2 t7-f2 t4-f2 t6-t4x3 t7-f1 draw draw waste-t4 t3-t7 recycle draw waste-t3 t7-t3x6
t7-f4 t5-f4 waste-f4 t2-f4 t3-f4 waste-f3 t2-f3 t2-f1 t3-f3 t2-f3 t3-f1 t3-f3 t4-f1 draw
waste-f4 t6-f4 t2-f4 t2-f3 t3-f4 t2-f4 t3-f3 t2-f3 waste-f2 t7-f2 t1-f2 t1-f1 t4-f2 t4-f1
t1-f2 t1-f4 t3-f1 t4-f2
"""
WON_LOG = WON_TEXT.split()


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    stdin: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


# -- show ---------------------------------------------------------------------------------------


def test_show_prints_the_full_layout_and_rules(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, err = run(capsys, monkeypatch, ["show", "kl1-d3v-aaaaaag"])
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("KL1-D3V-AAAAAAG")
    assert "draw 3" in lines[1] and "preset V (Vegas)" in lines[1] and "passes 1" in lines[1]
    assert "foundation return yes" in lines[1] and "auto-finish no" in lines[1]
    assert "scoring vegas" in lines[1]
    deal = DealCode.parse("KL1-D3V-AAAAAAG").deal
    cols = {ln.split(":")[0]: ln.split(":")[1].split() for ln in lines if ln[:2] in _T}
    for i, col in enumerate(deal.columns):
        shown = cols[f"t{i + 1}"]
        assert shown == [f"[{c}]" for c in col[:-1]] + [str(col[-1])]
    (stock,) = [ln for ln in lines if ln.startswith("stock (draw order):")]
    assert stock.split(":")[1].split() == [str(c) for c in deal.stock]


_T = {f"t{i}" for i in range(1, 8)}


def test_show_json_is_the_full_view(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, _ = run(capsys, monkeypatch, ["show", CODE, "--json"])
    assert rc == 0
    view = json.loads(out)
    assert view == full_view(GameState.from_code(CODE))
    deal = DealCode.parse(CODE).deal
    assert [col["down"] + col["up"] for col in view["tableau"]] == [
        [str(c) for c in col] for col in deal.columns
    ]
    assert view["stock"] == [str(c) for c in deal.stock]


def test_python_dash_m_show_runs_as_a_program() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "games.engine", "show", "KL1-D1N-AAAAAAG"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "t7: [9H] [3C] [QD] [7S] [QS] [4D] AH" in out.stdout
    assert "stock (draw order): QH JH AS QC" in out.stdout


@pytest.mark.parametrize("command", ["show", "play"])
def test_malformed_code_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    rc, out, err = run(capsys, monkeypatch, [command, "KL1-D2N-AAAAAAG"])
    assert rc == 2 and out == ""
    assert "draw must be D1 or D3" in err


def test_missing_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


# -- replay -------------------------------------------------------------------------------------

LOG = """\
# KL1-D1N-AAAAAAG, a short game
draw
t1-f3

t5-t4   # 9D onto 10C
undo
t5-t4
t7-f2
resign
"""


def test_replay_prints_the_outcome_as_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    f = tmp_path / "game.txt"
    f.write_text(LOG)
    rc, out, err = run(capsys, monkeypatch, ["replay", CODE.lower(), str(f)])
    assert rc == 0 and err == ""
    got = json.loads(out)
    o = replay(CODE, games.engine.parse_actions(LOG)).outcome
    assert got == {
        "code": CODE,
        "won": False,
        "status": "resigned",
        "score": o.score,
        "score_display": o.score_display,
        "moves": 6,
        "undos": 1,
        "foundations": 2,
    }
    assert got["score"] == 30


def test_replay_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, _ = run(capsys, monkeypatch, ["replay", CODE, "-"], stdin=LOG)
    assert rc == 0
    assert json.loads(out)["status"] == "resigned"


def test_replay_of_a_won_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, _ = run(capsys, monkeypatch, ["replay", WON_CODE, "-"], stdin="\n".join(WON_LOG))
    assert rc == 0
    got = json.loads(out)
    assert got["won"] is True and got["status"] == "won" and got["foundations"] == 52
    assert got["moves"] == len(WON_LOG) and got["score"] == 415


def test_replay_illegal_line_names_the_file_line_and_the_rule(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    f = tmp_path / "bad.txt"
    # The illegal action is the 3rd action but on line 6 of the file.
    f.write_text("# header\ndraw\n\nt1-f3\n# a comment\nt2-t3\nt7-f2\n")
    rc, out, err = run(capsys, monkeypatch, ["replay", CODE, str(f)])
    assert rc == 2 and out == ""
    assert "line 6" in err and "'t2-t3'" in err
    assert "JC does not fit on KD" in err and "rules §2.1" in err


def test_replay_unreadable_line_names_the_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, _, err = run(capsys, monkeypatch, ["replay", CODE, "-"], stdin="draw\n\nt9-t1\n")
    assert rc == 2
    assert "stdin line 3" in err and "unknown pile 't9'" in err


def test_replay_after_the_end_of_the_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, _, err = run(capsys, monkeypatch, ["replay", CODE, "-"], stdin="resign\n#\ndraw\n")
    assert rc == 2
    assert "line 3" in err and "the game is over" in err


def test_replay_malformed_code_and_missing_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rc, _, err = run(capsys, monkeypatch, ["replay", "KL1-D1N-AAAA", "-"], stdin="draw\n")
    assert rc == 2 and "the deal number must be 7 letters" in err
    rc, _, err = run(capsys, monkeypatch, ["replay", CODE, str(tmp_path / "nope.txt")])
    assert rc == 2 and "cannot read" in err


# -- play ---------------------------------------------------------------------------------------


def test_play_scripted_session(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = "t1-f\ntap t7\nmoves\nundo\nflip t3\nt1-t2\nhelp\nquit\ndraw\n"
    rc, out, err = run(capsys, monkeypatch, ["play", "KL1-D3N-AAAAAAG"], stdin=script)
    assert rc == 0 and err == ""
    assert "\x1b[" not in out  # stdout is not a terminal: no colours
    # The first board: face-down cards as ##, every column's top card shown.
    first = out.split("played")[0]
    assert " t1   t2   t3   t4   t5   t6   t7" in first
    assert " AD   ##   ##   ##   ##   ##   ##" in first
    assert "stock 24 | waste --" in first and "score 0 | moves 0 | pass 1 (unlimited)" in first
    assert "played t1-f3 (+10)" in out
    assert "played t7-f2 (+15), turned up 4D" in out  # tap resolves to the foundation
    assert "foundations  f1 -S  f2 AH  f3 AD  f4 -C" in out
    assert "legal moves: draw " in out
    assert "played undo (-15)" in out and "score 10 | moves 3" in out
    assert "?? 'flip t3' is not an action" in out
    assert "illegal: t1 is empty" in out
    assert "dtap t3 9H" in out  # the help text
    assert out.rstrip().endswith("bye")
    assert "stock 21" not in out  # nothing is read after quit


def test_play_draw_three_shows_the_last_three_waste_cards(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, _ = run(capsys, monkeypatch, ["play", WON_CODE], stdin="draw\ndraw\n")
    assert rc == 0
    assert "stock 21 | waste QH JH AS" in out
    assert "stock 18 | waste (3 under) QC 2S 2C" in out
    assert out.rstrip().endswith("end of input: bye")


def test_play_request_forms_and_resign(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = "T1-F\ntap t7\ndtap t6\nt5-t4@9D\nresign\n"
    rc, out, _ = run(capsys, monkeypatch, ["play", CODE], stdin=script)
    assert rc == 0 and "illegal" not in out
    assert "played t6-t7" in out  # 3S onto 4D, the only place
    assert "played t5-t4" in out
    assert out.rstrip().endswith("resigned after 4 moves. Score 35.")


def test_play_a_whole_game_to_a_win(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = "\n".join(WON_LOG) + "\nquit\n"
    rc, out, err = run(capsys, monkeypatch, ["play", WON_CODE], stdin=script)
    assert rc == 0 and err == ""
    assert "illegal" not in out and "??" not in out
    assert f"You won in {len(WON_LOG)} moves! Score 415." in out
    last_board = out.rsplit("KL1-D3N-AAAAAAG  draw 3", 1)[1]
    assert "foundations  f1 KS  f2 KH  f3 KD  f4 KC" in last_board
    assert " --   --   --   --   --   --   --" in last_board
    assert "bye" not in out  # the game ended with the win, before "quit"


def test_play_without_scoring_and_with_colours(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, out, _ = run(capsys, monkeypatch, ["play", "KL1-D1C-AAAAAAG", "--color", "always"])
    assert rc == 0
    assert "score" not in out.split("\n", 3)[2]
    assert "pass 1 of 1" in out
    assert "\x1b[31mAD\x1b[0m" in out  # red suits in red
    plain = render_board(GameState.from_code(CODE))
    assert "\x1b[" not in plain


# -- solve hook ---------------------------------------------------------------------------------


def test_solve_forwards_its_arguments(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []

    def main_solve(argv: list[str]) -> int:
        seen.append(argv)
        return 3

    fake = types.ModuleType("games.engine.solver")
    fake.main_solve = main_solve  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "games.engine.solver", fake)
    assert main(["solve", CODE, "--budget", "5", "--help"]) == 3
    assert seen == [[CODE, "--budget", "5", "--help"]]


def test_solve_without_a_solver_command_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "games.engine.solver", types.ModuleType("x"))
    assert main(["solve", CODE]) == 2
    assert "no main_solve" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "games.engine.solver", None)
    assert main(["solve", CODE]) == 2
    assert "the solver is not available" in capsys.readouterr().err


def test_cli_doctests() -> None:
    result = doctest.testmod(cli, extraglobs=vars(games.engine), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_solve_moves_prints_a_replay_text_that_replay_reads(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rc, out, _ = run(capsys, monkeypatch, ["solve", "KL1-D1N-AAAAAAG", "--moves"])
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith("# KL1-D1N-AAAAAAG: solved,")
    assert all(" " not in line for line in lines[1:])  # one action a line
    text = tmp_path / "line.txt"
    text.write_text(out)
    rc, out, err = run(capsys, monkeypatch, ["replay", "KL1-D1N-AAAAAAG", str(text)])
    assert rc == 0, err
    assert json.loads(out)["won"] is True

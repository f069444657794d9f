"""games/daily/services/deals.py: a daily deal's par is the length of its stored line, the
shortest winning line found (games/engine/solver/shortening.py)."""

from __future__ import annotations

import pytest

from games import engine
from games.daily.services import deals as daily_deals
from games.engine import solver
from games.engine.solver.shortening import greedy_line
from tests.games.daily.conftest import DAY, at

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("mode", ["D1N", "D3N"])
def test_par_is_the_stored_lines_length_and_it_wins(clock, mode):
    clock(at(DAY, 12))
    daily = daily_deals.daily_deal_get_or_create(day=DAY, mode=mode)
    line = [engine.parse_action(a) for a in daily.solution.split("\n")]
    assert daily.par == len(line) > 0
    state = engine.GameState.from_code(
        str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
    )
    assert solver.replay_wins(state, line)
    # A simple greedy player's win is one of the lines par is the shortest of.
    greedy = greedy_line(state)
    assert greedy is None or daily.par <= len(greedy)

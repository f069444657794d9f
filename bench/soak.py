"""Soak run with faults (issue #41): about 200 simulated players on the multi-node stack
through its load balancer for a bounded time, while a web node, Redis, the ranking worker and
PostgreSQL fail in turn; then what the players were told is checked against what was stored.

Run (under the shared lock; a fresh stack of its own under var/soak, on the stack's default
ports or `SOAK_PORTS`, stopped at the end; a minute or two of set-up, most of it the players'
sign-ups, one password hash at a time)::

    flock /tmp/klondike-bench.lock .venv/bin/python bench/soak.py  # --players 200 --duration 480
    .venv/bin/python bench/soak.py --players 20 --duration 60        # quick, for development

`--stack-root var/stack` uses that stack instead (`make stack`'s: started if down, its data
kept; its today's boards must still be open, as the soak makes them final at its end).

The players (bench/soak_player.py) sign up and verify their e-mail through the API, each from
a loopback address of its own (the balancer and the throttles see 200 clients), then play
their daily and casual games at human pace: moves, draws, undos, hints, resigns and wins. The
faults, each at its time, each with a window from its start to the stack answering again:

- a web node SIGKILLed, down `NODE_DOWN_S`, then started again;
- Redis restarted (no persistence: what it held is gone);
- the ranking worker SIGKILLed in the middle of a ranking job: the soak holds a lock that the
  job's last step needs (ATTACH PARTITION of its new generation) and sends a job; once
  PostgreSQL shows the job waiting there, inside its transaction with the generation built,
  the worker is killed, the lock let go, the job's transaction seen gone, the worker started;
- PostgreSQL restarted (`pg_ctl restart -m fast`: every connection dropped).

Then the targets, each printed met or missed (the exit status is 1 when one is missed):
every action answered 200 in its game's stored log at its seq, and the logs exactly what the
players know (nothing doubled); `manage.py verify_games` (every stored game re-played) exits
0; the day's boards, made final as the grace hour's end does, equal a ranking made from
scratch in Python (bench/soak_checks.py); failed requests only from a fault's start to 5 s
after the stack answers again; and the actions' p50 and p99 outside those windows.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import secrets
import shutil
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    HOST,
    django_run,
    interrupt_on_signals,
    machine_busy,
    percentile,
)
from bench.soak_player import Client, Player, Recorder, play_all, player_address  # noqa: E402
from tools.stack import Ports, Stack, StackError  # noqa: E402

SOAK_ROOT = ROOT / "var" / "soak"
GRACE_S = 5.0  # after a fault's end, every request must succeed again
STREAK = 50  # requests in a row that succeed: the stack is back
NODES = 3
NODE_DOWN_S = 5.0  # how long the killed node stays down
KILLED_NODE = 1
# One at a time: the host hashes one password at a time (PASSWORD_HASHES_AT_ONCE), and a
# sign-up refused for that (503) still counts against its address's register throttle.
SIGN_UP_THREADS = 1
SIGN_UP_TIMEOUT_S = 900
JOB_WAIT_S = 90  # for the ranking job to reach the lock
DRAIN_TIMEOUT_S = 180
ACTIONS = ("move", "draw", "undo", "resign")  # the request kinds that are game actions
ENTRY_TABLE = "games_leaderboardentry"  # games.models.LeaderboardEntry's table
# When each fault starts, as a share of the run (each waits for the one before it to end).
SCHEDULE = (0.10, 0.30, 0.50, 0.70)
# The soak's own stack listens below the kernel's ephemeral ports (32768 and up): a port a
# fault frees (a killed node's, Redis's, PostgreSQL's) could otherwise be taken by an outgoing
# connection before the part starts again. The default ports, else these.
SOAK_PORTS = (Ports(), Ports(lb=8490, node=8491, pg=5490, redis=6490))


# --- the stack ---------------------------------------------------------------------------


def stack_for(args: argparse.Namespace) -> Stack:
    """The stack the soak runs on: the one under `--stack-root`, or a fresh one of its own."""
    if args.stack_root is not None:
        return Stack(args.stack_root)
    Stack(SOAK_ROOT).stop()  # a previous run's, if it was left running
    shutil.rmtree(SOAK_ROOT, ignore_errors=True)
    for ports in SOAK_PORTS:
        wanted = (ports.lb, ports.pg, ports.redis, *range(ports.node, ports.node + NODES))
        if all(_port_free(port) for port in wanted):
            return Stack(SOAK_ROOT, nodes=NODES, ports=ports)
    raise SystemExit(f"the soak's ports are taken: {SOAK_PORTS}")


def _port_free(port: int) -> bool:
    """Whether nothing listens on or holds the loopback port."""
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def checks(stack: Stack, *argv: str) -> Any:
    """A step of bench/soak_checks.py in the stack's database; its JSON."""
    return json.loads(django_run(stack.env, "-m", "bench.soak_checks", *argv))


def pg_connect(stack: Stack) -> Any:
    """A connection to the stack's database as PostgreSQL's superuser (the stack's cluster
    trusts loopback), for the soak's own lock and for pg_stat_activity."""
    import psycopg

    return psycopg.connect(
        host=HOST, port=stack.ports.pg, user="postgres", dbname="klondike", autocommit=True
    )


def queue_lengths(stack: Stack) -> dict[str, int]:
    """Tasks waiting in the stack's Celery queues (Redis lists), and those a worker took
    and has not acknowledged (`unacked`: a killed worker's stay there for the broker's
    visibility timeout)."""
    import redis

    r = redis.Redis(host=HOST, port=stack.ports.redis, socket_timeout=5)
    lengths = {q: int(r.llen(q)) for q in ("ranking", "celery", "analysis")}
    unacked = [json.loads(m) for m in r.hvals("unacked")]
    lengths["unacked"] = len(unacked)
    for message in unacked:  # kombu keeps [message, exchange, routing key]
        task = message[0].get("headers", {}).get("task", "?") if message else "?"
        lengths[f"unacked {task}"] = lengths.get(f"unacked {task}", 0) + 1
    return lengths


def drain_ranking(stack: Stack) -> dict[str, int]:
    """Wait until the ranking worker's queues are empty (rankings, integrity checks), as
    seen three times a second apart; returns what was left at the end."""
    deadline, quiet = time.monotonic() + DRAIN_TIMEOUT_S, 0
    while time.monotonic() < deadline and quiet < 3:
        lengths = queue_lengths(stack)
        quiet = quiet + 1 if lengths["ranking"] + lengths["celery"] == 0 else 0
        time.sleep(1.0)
    time.sleep(2.0)  # the last task taken finishes
    return queue_lengths(stack)


# --- the faults ----------------------------------------------------------------------------

Fault = Callable[[Stack, str], dict[str, Any]]


def node_killed(stack: Stack, day: str) -> dict[str, Any]:
    stack.kill_node(KILLED_NODE)
    time.sleep(NODE_DOWN_S)
    stack.start_node(KILLED_NODE)
    return {"node": KILLED_NODE, "down_s": NODE_DOWN_S}


def redis_restarted(stack: Stack, day: str) -> dict[str, Any]:
    before = queue_lengths(stack)
    stack.restart_redis()
    return {"queued_before": before}


def ranking_worker_killed(stack: Stack, day: str) -> dict[str, Any]:
    """Kill the ranking worker while a ranking job is inside its transaction, its new
    generation built and waiting to be attached (see the module's docstring)."""
    with pg_connect(stack) as watch, pg_connect(stack) as holder:
        holder.autocommit = False
        holder.execute(f"LOCK TABLE {ENTRY_TABLE} IN SHARE UPDATE EXCLUSIVE MODE")
        stack.manage(
            "shell",
            "-c",
            f"from games.tasks import rank_daily; rank_daily.delay('{day}', 'D1N')",
        )
        waiting: list[int] = []
        deadline = time.monotonic() + JOB_WAIT_S
        while not waiting and time.monotonic() < deadline:
            waiting = [
                pid
                for (pid,) in watch.execute(
                    "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND state = 'active' AND query LIKE %s",
                    [f"ALTER TABLE {ENTRY_TABLE} ATTACH PARTITION%"],
                )
            ]
            time.sleep(0.05)
        stack.kill_ranking_worker()
        holder.rollback()  # the lock goes; the orphaned jobs go on, find no client, roll back
        deadline = time.monotonic() + 30
        left = waiting
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = [
                pid
                for (pid,) in watch.execute(
                    "SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)", [waiting]
                )
            ]
        stack.start_ranking_worker()
    return {"jobs_killed_mid_ranking": len(waiting), "their_transactions_left": len(left)}


def postgres_restarted(stack: Stack, day: str) -> dict[str, Any]:
    stack.restart_postgres()
    return {}


FAULTS: tuple[tuple[str, Fault], ...] = (
    ("web node SIGKILL + restart", node_killed),
    ("Redis restart", redis_restarted),
    ("ranking worker SIGKILL mid-job", ranking_worker_killed),
    ("PostgreSQL restart", postgres_restarted),
)


def inject_faults(stack: Stack, day: str, t_start: float, duration: float) -> list[dict[str, Any]]:
    """Each fault at its time (`SCHEDULE`); returns when each started and when the stack
    answered again."""
    done = []
    for (name, fault), share in zip(FAULTS, SCHEDULE, strict=True):
        at = max(t_start + share * duration, done[-1]["back"] + GRACE_S if done else 0.0)
        time.sleep(max(0.0, at - time.monotonic()))
        began = time.monotonic()
        try:
            notes = fault(stack, day)
        except (StackError, OSError) as exc:
            notes = {"error": str(exc)}
        back = time.monotonic()
        done.append({"name": name, "start": began, "back": back, "notes": notes})
        print(f"  {name}: {back - began:.1f} s  {notes}", flush=True)
    return done


# --- the players ---------------------------------------------------------------------------


def sign_up(stack: Stack, names: list[str], seed: int) -> list[str]:
    """Register every player through the API and verify its address with the link the
    service would e-mail; returns their tokens."""
    port = stack.ports.lb
    rec = Recorder()
    players = [
        Player(i, name, Client(HOST, port, player_address(i), rec), _rng(seed, i))
        for i, name in enumerate(names)
    ]
    deadline = time.monotonic() + SIGN_UP_TIMEOUT_S
    with ThreadPoolExecutor(SIGN_UP_THREADS) as pool:
        list(pool.map(lambda p: p.register(deadline), players))
    for p in players:
        p.client.conn.close()  # idle while the links are made: the server may close it
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(names))
        f.flush()
        links = checks(stack, "links", f.name)
    with ThreadPoolExecutor(SIGN_UP_THREADS) as pool:
        list(pool.map(lambda p: p.verify_email(*links[p.name]), players))
    for p in players:
        p.client.conn.close()
    answers = Counter(f"{kind} {status}" for _, _, kind, status, _ in rec.requests)
    print(f"  sign-up answers: {dict(sorted(answers.items()))}", flush=True)
    return [p.client.headers["Authorization"].split()[1] for p in players]


def _rng(seed: int, index: int) -> Any:
    import random

    return random.Random(seed * 7919 + index)


def client_process(out: str, *args: Any, **kwargs: Any) -> None:
    """A client process: its players (`play_all`), then its record and CPU time to `out`."""
    rec = play_all(*args, **kwargs)
    cpu = os.times()
    with open(out, "w") as f:
        json.dump(
            {
                "requests": rec.requests,
                "games": rec.games,
                "counts": rec.counts,
                "problems": rec.problems,
                "cpu_s": cpu.user + cpu.system,
            },
            f,
        )


# --- the report ----------------------------------------------------------------------------


def fault_figures(
    requests: list[tuple[float, float, str, int, bool]], faults: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per fault: failed requests inside its window (from its start to its end + GRACE_S, a
    request in flight at its start included), those later (until the next fault: a miss),
    and how long from its start to the first STREAK requests in a row that succeed."""
    ordered = sorted(requests)
    out = []
    for i, fault in enumerate(faults):
        start, back = fault["start"], fault["back"]
        until = faults[i + 1]["start"] if i + 1 < len(faults) else float("inf")
        inside = [
            r for r in ordered if not r[4] and r[0] <= back + GRACE_S and r[0] + r[1] >= start
        ]
        later = [r for r in ordered if not r[4] and back + GRACE_S < r[0] < until]
        streak_at, run = None, 0
        for r in (r for r in ordered if r[0] + r[1] >= start):
            run = run + 1 if r[4] else 0
            if run == 1:
                streak_at = r[0]
            if run == STREAK:
                break
        else:
            streak_at = None
        out.append(
            {
                "name": fault["name"],
                "took_s": back - start,
                "errors_in_window": len(inside),
                "statuses": dict(Counter(r[3] for r in inside)),
                "errors_after_grace": len(later),
                "last_error_after_end_s": max((r[0] + r[1] for r in inside), default=back) - back,
                "streak_after_start_s": None if streak_at is None else max(0.0, streak_at - start),
                "notes": fault["notes"],
            }
        )
    return out


def outside_windows(r: tuple[float, float, str, int, bool], faults: list[dict[str, Any]]) -> bool:
    """Whether a request ran wholly outside every fault's window (its start to end + GRACE_S)."""
    return all(r[0] > f["back"] + GRACE_S or r[0] + r[1] < f["start"] for f in faults)


def report(result: dict[str, Any]) -> bool:
    """Print the figures and each target met or missed; returns whether all were met."""
    targets: list[tuple[str, bool, str]] = []
    logs = result["logs"]
    targets.append(
        (
            "0 acknowledged actions lost",
            logs["lost"] == 0,
            f"{logs['lost']} of {logs['acked_actions']} actions answered 200 "
            f"({logs['games']} games)",
        )
    )
    targets.append(
        (
            "stored logs = what the players know (nothing doubled)",
            logs["logs_differ"] == 0,
            f"{logs['logs_differ']} games differ",
        )
    )
    problems = result["counts"].get("problems", 0)
    targets.append(
        ("every answer agrees with the engine", problems == 0, f"{problems} disagreements")
    )
    verify = result["verify_games"]
    targets.append(
        ("0 games whose outcome differs from their replay", verify["ok"], verify["summary"])
    )
    boards = result["boards"]
    for mode, board in sorted(boards.items()):
        targets.append(
            (
                f"board {mode} final = ranking from scratch",
                board["final"] and board["equal"],
                f"{board['entries']} entries ({board['won']} won, {board['withheld']} withheld, "
                f"{board['players']} attempts, {board['unchecked']} never integrity-checked)"
                + (f"; first difference {board['first_difference']}" if not board["equal"] else ""),
            )
        )
    for f in result["faults"]:
        streak = f["streak_after_start_s"]
        targets.append(
            (
                f"{f['name']}: no failure {GRACE_S:g} s after it ends",
                f["errors_after_grace"] == 0 and "error" not in f["notes"],
                f"took {f['took_s']:.1f} s, {f['errors_in_window']} failed in its window "
                f"{f['statuses']}, last {f['last_error_after_end_s']:+.1f} s from its end, "
                f"{STREAK} in a row succeed from "
                + ("never" if streak is None else f"{streak:.1f} s after its start"),
            )
        )
    ranking = next(f for f in result["faults"] if f["name"].startswith("ranking"))
    killed = ranking["notes"].get("jobs_killed_mid_ranking", 0)
    targets.append(
        (
            "ranking worker killed inside a ranking job",
            killed > 0 and ranking["notes"].get("their_transactions_left") == 0,
            f"{killed} jobs waiting at ATTACH PARTITION when killed, rolled back",
        )
    )
    outside = result["failures_outside_windows"]
    targets.append(
        ("requests fail only inside the faults' windows", outside == 0, f"{outside} failed outside")
    )
    lat = result["latency_ms"]
    print(
        f"\nsoak: {result['players']} players, {result['duration_s']:g} s, "
        f"{result['requests']} requests ({result['requests'] / result['duration_s']:.0f}/s), "
        f"{result['actions']} game actions; machine CPU {result['machine_cpu']:.0%} of "
        f"{os.cpu_count()} cores, clients {result['client_cpu_s']:.0f} CPU s"
    )
    print(f"games: {json.dumps(result['game_counts'])}")
    print(
        f"game actions outside the fault windows: p50 {lat['p50']:.1f} ms, p99 "
        f"{lat['p99']:.1f} ms, max {lat['max']:.0f} ms ({lat['count']} actions); card moves "
        f"p50 {lat['move_p50']:.1f} ms, p99 {lat['move_p99']:.1f} ms"
    )
    print(f"queues after the run: {result['queues']}")
    print()
    for name, met, detail in targets:
        print(f"[{'met' if met else 'MISSED'}] {name}: {detail}")
    return all(met for _, met, _ in targets)


# --- the run -------------------------------------------------------------------------------


def run(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    t0 = time.monotonic()
    stack.start()
    print(f"stack up at {stack.url} in {time.monotonic() - t0:.0f} s", flush=True)
    daily = checks(stack, "dailies")
    day, boards = daily["date"], daily["boards"]
    if any(b["final"] for b in boards.values()):
        raise SystemExit(f"the stack's {day} boards are final already: use a fresh stack")
    tag = secrets.token_hex(3)
    signing_up = min(args.sign_ups, args.players)
    names = [f"soak{tag}p{i}" for i in range(signing_up)]
    t0 = time.monotonic()
    tokens = sign_up(stack, names, args.seed)
    if args.players > signing_up:  # the rest made in the database, verified, with tokens
        rest = args.players - signing_up
        tokens += json.loads(
            django_run(stack.env, "-m", "bench.harness", "--make-users", str(rest))
        )
        names += [f"bench{i}" for i in range(rest)]
    print(
        f"{len(names)} players signed up and verified in {time.monotonic() - t0:.0f} s", flush=True
    )

    work = Path(tempfile.mkdtemp(prefix="klondike-soak-"))
    ctx = multiprocessing.get_context("fork")
    t_start = time.monotonic() + 2.0
    t_end = t_start + args.duration
    busy0 = machine_busy()
    procs = []
    for k in range(args.processes):
        mine = [(i, names[i], tokens[i]) for i in range(k, args.players, args.processes)]
        proc = ctx.Process(
            target=client_process,
            args=(str(work / f"client{k}.json"), mine, HOST, stack.ports.lb),
            kwargs={
                "day": day,
                "boards": boards,
                "t_start": t_start,
                "t_end": t_end,
                "pace": args.pace,
                "seed": args.seed,
            },
            daemon=True,
        )
        proc.start()
        procs.append(proc)
    print(f"playing {args.duration:g} s; faults:", flush=True)
    faults = inject_faults(stack, day, t_start, args.duration)
    for proc in procs:
        proc.join()
    busy = machine_busy() - busy0
    wall = time.monotonic() - t_start

    requests: list[tuple[float, float, str, int, bool]] = []
    games: dict[str, Any] = {}
    counts: Counter[str] = Counter()
    client_cpu = 0.0
    for k in range(args.processes):
        with open(work / f"client{k}.json") as f:
            part = json.load(f)
        requests += [tuple(r) for r in part["requests"]]  # type: ignore[misc]
        games.update(part["games"])
        counts.update(part["counts"])
        client_cpu += part["cpu_s"]
        for problem in part["problems"][:5]:
            print(f"  problem: {problem}")
    with open(work / "games.json", "w") as f:
        json.dump(games, f)

    print("checking: logs, then the boards made final, verify_games, the boards", flush=True)
    logs = checks(stack, "logs", str(work / "games.json"))
    drain_ranking(stack)
    checks(stack, "close", day)
    queues = drain_ranking(stack)
    verify = run_verify_games(stack)
    final_boards = checks(stack, "boards", day)
    shutil.rmtree(work, ignore_errors=True)

    actions = [r for r in requests if r[2] in ACTIONS]
    calm = [r[1] * 1000 for r in actions if r[4] and outside_windows(r, faults)]
    calm_moves = [
        r[1] * 1000 for r in actions if r[2] == "move" and r[4] and outside_windows(r, faults)
    ]
    return {
        "players": args.players,
        "duration_s": args.duration,
        "requests": len(requests),
        "actions": len(actions),
        "machine_cpu": busy / (wall * (os.cpu_count() or 1)),
        "client_cpu_s": client_cpu,
        "counts": dict(counts),
        "game_counts": {k: v for k, v in sorted(counts.items()) if k != "problems"},
        "logs": logs,
        "verify_games": verify,
        "boards": final_boards,
        "queues": queues,
        "faults": fault_figures(requests, faults),
        "failures_outside_windows": sum(
            1 for r in requests if not r[4] and outside_windows(r, faults)
        ),
        "latency_ms": {
            "p50": percentile(calm, 0.5),
            "p99": percentile(calm, 0.99),
            "max": max(calm, default=float("nan")),
            "count": len(calm),
            "move_p50": percentile(calm_moves, 0.5),
            "move_p99": percentile(calm_moves, 0.99),
        },
    }


def run_verify_games(stack: Stack) -> dict[str, Any]:
    """`manage.py verify_games` on the stack's database: ok when it exits 0."""
    try:
        out = stack.manage("verify_games")
    except StackError as exc:
        text = str(exc)
        return {"ok": False, "summary": text.strip().splitlines()[-1][:300] if text else "failed"}
    lines = [line for line in out.splitlines() if line.strip()]
    return {"ok": True, "summary": lines[-1][:300] if lines else "exit 0"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--duration", type=float, default=480.0, help="seconds of play (<= 600)")
    parser.add_argument(
        "--sign-ups",
        type=int,
        default=1000,
        help="players who sign up through the API (the rest are made in the database)",
    )
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--pace", type=float, default=1.0, help="think time factor (1: human)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stack-root", type=Path, default=None, help="use this stack instead")
    parser.add_argument("--keep", action="store_true", help="leave the soak's own stack running")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    if not (1 <= args.players <= 1000 and 30 <= args.duration <= 600 and args.processes >= 1):
        parser.error("players 1..1000, duration 30..600 s")
    if args.players > 250 * 250:
        parser.error("too many players for the loopback addresses")
    interrupt_on_signals()
    stack = stack_for(args)
    try:
        result = run(args, stack)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if args.stack_root is None and not args.keep:
            stack.stop()
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1, default=str))
    return 0 if report(result) else 1


if __name__ == "__main__":
    sys.exit(main())

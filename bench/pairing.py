"""Pairing time of a large Swiss event: `python -m bench.pairing [--players N] [--rounds R]`.

Plays a seeded event of N players (2,048 by default) with random results and prints the time
to pair each round, then the figure that counts: the time to pair round R (8 by default).
Target: under 2 s for 2,048 players at round 8 (docs/tournament.md)."""

from __future__ import annotations

import argparse
import random
import sys
import time

from server.rules.swiss import Match, Player, pair_round, standings

TARGET_S = 2.0


def run(players: int, rounds: int, seed: int) -> float:
    rng = random.Random(seed)
    entrants = [Player(i) for i in range(1, players + 1)]
    matches: list[Match] = []
    last = 0.0
    for r in range(1, rounds + 1):
        started = time.perf_counter()
        pairing = pair_round(entrants, matches, r, rng.randrange)
        last = time.perf_counter() - started
        print(f"round {r}: {len(pairing.tables)} tables, bye {pairing.bye}, paired in {last:.3f} s")
        for m in pairing.matches():
            matches.append(m if m.bye else Match(r, m.a, m.b, rng.choice("AB"), m.table))
    started = time.perf_counter()
    standings(entrants, matches)
    print(f"standings after round {rounds}: {time.perf_counter() - started:.3f} s")
    return last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    last = run(args.players, args.rounds, args.seed)
    verdict = "within" if last < TARGET_S else "OVER"
    print(
        f"pairing time, {args.players} players, round {args.rounds}: {last:.3f} s "
        f"({verdict} the {TARGET_S:.0f} s target)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

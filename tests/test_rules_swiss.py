"""Swiss pairing, standings and the top cut (server/rules/swiss.py).

The pairing properties are checked against a brute force over every perfect matching for up to
10 players, after any sequence of results, drops and late entries that hypothesis draws."""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import swiss
from server.rules.swiss import Match, Player, SwissError, pair_round, standings


def perfect_matchings(nodes: list[int]) -> Iterator[list[tuple[int, int]]]:
    if not nodes:
        yield []
        return
    first, rest = nodes[0], nodes[1:]
    for i, other in enumerate(rest):
        for tail in perfect_matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def cost_tuple(
    pairs: list[tuple[int, int]],
    bye: int | None,
    order: list[int],
    points: dict[int, int],
    met: set[frozenset[int]],
    had_bye: set[int],
) -> tuple[int, int, int, int]:
    """(rematches, second byes, how far the bye is from the bottom of the ranking, spread)."""
    rematches = sum(frozenset(p) in met for p in pairs)
    second = int(bye is not None and bye in had_bye)
    from_bottom = len(order) - 1 - order.index(bye) if bye is not None else 0
    spread = sum((points[a] - points[b]) ** 2 for a, b in pairs)
    return rematches, second, from_bottom, spread


def brute_force(order, points, met, had_bye):
    nodes = list(order) + ([-1] if len(order) % 2 else [])
    best = None
    for m in perfect_matchings(nodes):
        bye = next((a if b == -1 else b for a, b in m if -1 in (a, b)), None)
        pairs = [p for p in m if -1 not in p]
        c = cost_tuple(pairs, bye, order, points, met, had_bye)
        best = c if best is None or c < best else best
    return best


results = st.sampled_from(["A", "B", "A", "B", "draw", "loss"])


@st.composite
def tournaments(draw):
    """Players, a few rounds of results with drops and late entries, and the next round."""
    n = draw(st.integers(2, 10))
    rounds = draw(st.integers(1, 4))
    late = draw(st.lists(st.integers(1, n), max_size=2, unique=True))
    players = {
        i: Player(i, entered_round=2 if i in late and rounds >= 2 else 1) for i in range(1, n + 1)
    }
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    matches: list[Match] = []
    for r in range(1, rounds + 1):
        if sum(p.active_in(r) for p in players.values()) < 2:
            break
        pairing = pair_round(list(players.values()), matches, r, rng.randrange)
        for m in pairing.matches():
            matches.append(m if m.bye else Match(r, m.a, m.b, draw(results), m.table))
        for pid in draw(st.lists(st.sampled_from(sorted(players)), max_size=1)):
            if players[pid].dropped_after is None:
                players[pid] = Player(
                    pid, entered_round=players[pid].entered_round, dropped_after=r
                )
    return list(players.values()), matches, max([m.round for m in matches], default=0) + 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments())
def test_pairing_is_optimal_against_brute_force(t):
    players, matches, round_no = t
    active = [p.id for p in players if p.active_in(round_no)]
    if len(active) < 2:
        with pytest.raises(SwissError):
            pair_round(players, matches, round_no)
        return
    pairing = pair_round(players, matches, round_no)
    paired = [x for _, a, b in pairing.tables for x in (a, b)]
    if pairing.bye is not None:
        paired.append(pairing.bye)
    # every active player exactly once; nobody inactive; a bye only with an odd count
    assert sorted(paired) == sorted(active)
    assert (pairing.bye is not None) == (len(active) % 2 == 1)
    ranked = [s.player.id for s in standings(players, matches) if s.player.id in active]
    points = {s.player.id: s.points for s in standings(players, matches)}
    met = {frozenset((m.a, m.b)) for m in matches if m.b is not None}
    had_bye = {m.a for m in matches if m.b is None}
    got = cost_tuple(
        [(a, b) for _, a, b in pairing.tables], pairing.bye, ranked, points, met, had_bye
    )
    best = brute_force(ranked, points, met, had_bye)
    # lexicographic: no rematch while avoidable, no second bye while avoidable, the bye as low
    # as possible, then the least point spread
    assert got == best
    # tables numbered by the higher-ranked player's rank
    tops = [min(ranked.index(a), ranked.index(b)) for _, a, b in pairing.tables]
    assert tops == sorted(tops)
    assert [t for t, _, _ in pairing.tables] == list(range(1, len(pairing.tables) + 1))


def test_no_rematch_while_avoidable_simple_case():
    # 4 players after round 1 (1 beat 2, 3 beat 4): points pair 1-3, 2-4; never 1-2 again.
    players = [Player(i) for i in range(1, 5)]
    r1 = [Match(1, 1, 2, "A", 1), Match(1, 3, 4, "A", 2)]
    pairing = pair_round(players, r1, 2)
    assert {frozenset(p[1:]) for p in pairing.tables} == {frozenset((1, 3)), frozenset((2, 4))}
    # round 3: the only rematch-free pairing is 1-4, 2-3
    r2 = [Match(2, 1, 3, "A", 1), Match(2, 2, 4, "A", 2)]
    pairing = pair_round(players, r1 + r2, 3)
    assert {frozenset(p[1:]) for p in pairing.tables} == {frozenset((1, 4)), frozenset((2, 3))}


def test_bye_to_lowest_ranked_without_one_and_never_twice():
    players = [Player(i) for i in range(1, 6)]
    r1 = [Match(1, 1, 2, "A", 1), Match(1, 3, 4, "A", 2), Match(1, 5, None, "A")]
    pairing = pair_round(players, r1, 2)
    # 2 and 4 are 0-1; 5 had the bye; the lowest-ranked of 2 and 4 gets it
    low = [s.player.id for s in standings(players, r1)][-1]
    assert low in (2, 4)
    assert pairing.bye == low


def test_dropped_players_are_not_paired_but_count_for_tiebreakers():
    r1 = [Match(1, 1, 2, "A", 1), Match(1, 3, 4, "A", 2)]
    dropped = [Player(1), Player(2, dropped_after=1), Player(3), Player(4)]
    pairing = pair_round(dropped, r1, 2)
    assert 2 not in {x for _, a, b in pairing.tables for x in (a, b)}
    assert pairing.bye is not None
    by_id = {s.player.id: s for s in standings(dropped, r1)}
    assert by_id[1].omw == Fraction(1, 3)  # player 2 (0-1, floored) still counts for 1


def test_round_one_is_random_from_the_injected_source_and_reproducible():
    players = [Player(i) for i in range(1, 17)]
    a = pair_round(players, [], 1, random.Random(7).randrange)
    b = pair_round(players, [], 1, random.Random(7).randrange)
    c = pair_round(players, [], 1, random.Random(8).randrange)
    assert a == b
    assert a != c
    with pytest.raises(SwissError):
        pair_round(players, [], 1)


def test_next_round_needs_every_result():
    players = [Player(i) for i in range(1, 5)]
    open_ = [Match(1, 1, 2, None, 1), Match(1, 3, 4, "A", 2)]
    with pytest.raises(SwissError) as err:
        pair_round(players, open_, 2)
    assert err.value.code == "results_missing"


def test_swiss_rounds_follow_the_player_count():
    assert [swiss.swiss_rounds(n) for n in (8, 9, 16, 17, 32, 64, 128, 226, 227, 409, 410)] == [
        3, 4, 4, 5, 5, 6, 7, 8, 9, 9, 10,
    ]  # fmt: skip


def test_top_cut_is_seeded_one_against_eight():
    ranked = [10, 20, 30, 40, 50, 60, 70, 80, 90]
    assert swiss.top_cut(ranked, 8) == [(10, 80), (40, 50), (20, 70), (30, 60)]
    assert swiss.top_cut(ranked, 4) == [(10, 40), (20, 30)]
    assert swiss.bracket_order(16)[:4] == [1, 16, 8, 9]
    assert swiss.next_cut_round([10, 40, 20, 30]) == [(10, 40), (20, 30)]
    with pytest.raises(SwissError):
        swiss.top_cut(ranked, 6)
    with pytest.raises(SwissError):
        swiss.top_cut(ranked[:3], 4)


def test_tiebreak_number_format():
    assert swiss.thousandths(Fraction(7255, 10000)) == 726
    s = swiss.Standing(
        1, Player(1), 33, 11, 0, 0, 0, Fraction(1), Fraction(726, 1000), Fraction(677, 1000)
    )
    assert s.tiebreak == 33_726_677


def test_large_event_is_paired_validly():
    """The blocked matching (over DENSE_LIMIT players) still pairs everyone once, no rematch,
    no second bye, on a 301-player, 6-round event."""
    rng = random.Random(3)
    players = [Player(i) for i in range(1, 302)]
    matches: list[Match] = []
    for r in range(1, 7):
        pairing = pair_round(players, matches, r, rng.randrange)
        seen = [x for _, a, b in pairing.tables for x in (a, b)] + [pairing.bye]
        assert sorted(seen) == list(range(1, 302))
        met = {frozenset((m.a, m.b)) for m in matches if m.b is not None}
        assert not any(frozenset((a, b)) in met for _, a, b in pairing.tables)
        assert pairing.bye not in {m.a for m in matches if m.b is None}
        for m in pairing.matches():
            matches.append(m if m.bye else Match(r, m.a, m.b, rng.choice("AB"), m.table))


def test_hand_worked_example():
    """docs/tournament.md: 8 players, 3 rounds, P8 drops after round 1, byes in rounds 2-3."""
    players = [Player(i, f"P{i}") for i in range(1, 8)] + [Player(8, "P8", dropped_after=1)]
    matches = [
        Match(1, 1, 2, "A", 1), Match(1, 3, 4, "A", 2), Match(1, 5, 6, "A", 3),
        Match(1, 7, 8, "A", 4),
        Match(2, 1, 3, "A", 1), Match(2, 7, 5, "A", 2), Match(2, 2, 4, "A", 3),
        Match(2, 6, None, "A"),
        Match(3, 1, 7, "draw", 1), Match(3, 3, 6, "A", 2), Match(3, 5, 2, "A", 3),
        Match(3, 4, None, "A"),
    ]  # fmt: skip
    table = [s.to_dict() for s in standings(players, matches)]
    got = [(r["name"], r["points"], r["record"], r["omw"], r["oomw"], r["tiebreak"]) for r in table]
    assert got == [
        ("P7", 7, "2-0-1", 593, 617, 7_593_617),
        ("P1", 7, "2-0-1", 593, 556, 7_593_556),
        ("P5", 6, "2-1-0", 481, 617, 6_481_617),
        ("P3", 6, "2-1-0", 481, 586, 6_481_586),
        ("P6", 3, "1-2-0", 667, 481, 3_667_481),
        ("P2", 3, "1-2-0", 593, 525, 3_593_525),
        ("P4", 3, "1-2-0", 500, 537, 3_500_537),
        ("P8", 0, "0-1-0", 778, 593, 778_593),
    ]
    by = {s.player.id: s for s in standings(players, matches)}
    assert by[1].omw == Fraction(16, 27) and by[1].oomw == Fraction(5, 9)
    assert by[8].mwp == Fraction(1, 3)  # 0/3, floored
    assert table[7]["dropped"] is True
    assert [r["byes"] for r in table] == [0, 0, 0, 0, 1, 0, 1, 0]
    assert swiss.top_cut([r["player"] for r in table], 4) == [(7, 3), (1, 5)]

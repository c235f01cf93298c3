"""Swiss pairing, standings with tie-breakers, and the top cut: pure, no I/O.

The caller gives the registered players and every match so far (a bye is a match without an
opponent); this module ranks them and pairs the next round. Round 1 is paired at random from an
injected source (`randbelow`, as elsewhere in this package), so a seed reproduces it.

Standings (docs/tournament.md, where the sources are cited):
- points: a match win (or a bye) 3, a draw 1, a loss 0;
- a player's match-win percentage (MW%): points / (3 x rounds played), at least 1/3 (the
  usual 33% floor); rounds played count the bye and stop at a drop;
- OMW%: the mean MW% of the player's opponents (a bye is no opponent; a dropped opponent still
  counts, with the rounds they played);
- OOMW%: the mean OMW% of the player's opponents (each at least 1/3);
- the tie-breaker number XX YYY ZZZ: points, then OMW% and OOMW% in thousandths (rounded half
  up): 33 points, 72.6% and 67.7% print as 33 726 677.

Pairing is one maximum-weight matching (networkx, Edmonds' blossom algorithm) over the active
players in rank order, plus a bye node when their number is odd. Each possible pair has a cost,
compared lexicographically: a rematch, then a second bye, then the bye going to a player ranked
higher than needed, then the point spread (the square of the points between the two). The
matching minimises the total, so no rematch while a rematch-free pairing exists, no second bye
while a player without one can take it, the bye to the lowest-ranked player who can take it,
then the least spread. Over `DENSE_LIMIT` players the matching runs on blocks of the rank order
(see `pair_round`), with the same costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import networkx as nx

WIN, DRAW, LOSS = 3, 1, 0
FLOOR = Fraction(1, 3)
# Results of a match between a (seat A) and b (seat B).
A_WINS, B_WINS, DRAWN, BOTH_LOSE = "A", "B", "draw", "loss"
RESULTS = (A_WINS, B_WINS, DRAWN, BOTH_LOSE)
CUT_SIZES = (4, 8, 16, 32)
DENSE_LIMIT = 64  # up to this many players: one matching over every possible pair
BLOCK = 48  # above it: blocks of about this many players in rank order
WINDOW = 12  # ... where each player may meet the next WINDOW players in rank order


class SwissError(ValueError):
    """A request the tournament cannot satisfy (coded like RuleError)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Player:
    """A registered player: `id` is the registration number (it breaks final ties)."""

    id: int
    name: str = ""
    entered_round: int = 1  # a late entry plays from this round on
    dropped_after: int | None = None  # the last round played before dropping
    disqualified: bool = False  # a judge's disqualification: out like a drop, and shown as such
    checked_in: bool = True  # where the event checks players in, one not checked in is not paired

    def active_in(self, round_no: int) -> bool:
        dropped = self.dropped_after is not None and self.dropped_after < round_no
        return self.checked_in and self.entered_round <= round_no and not dropped


@dataclass(frozen=True)
class Match:
    """One Swiss match. `b` None: a bye for `a`. `result` None: still open."""

    round: int
    a: int
    b: int | None
    result: str | None = None
    table: int = 0

    @property
    def bye(self) -> bool:
        return self.b is None


@dataclass
class Record:
    """A player's record over the matches with a result."""

    points: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    byes: int = 0
    played: int = 0
    opponents: list[int] = field(default_factory=list)

    @property
    def mwp(self) -> Fraction:
        """Match-win percentage, with the 1/3 floor (1/3 before any round)."""
        if self.played == 0:
            return FLOOR
        return max(FLOOR, Fraction(self.points, WIN * self.played))


@dataclass(frozen=True)
class Standing:
    rank: int
    player: Player
    points: int
    wins: int
    losses: int
    draws: int
    byes: int
    mwp: Fraction
    omw: Fraction
    oomw: Fraction

    @property
    def tiebreak(self) -> int:
        """XX YYY ZZZ: points, OMW% and OOMW% in thousandths, each of YYY and ZZZ at most 999
        so that 100% never carries into the field to its left (docs/tournament.md). The
        ranking itself compares the exact fractions; OMW% and OOMW% have their own columns."""
        return self.points * 1_000_000 + field3(self.omw) * 1000 + field3(self.oomw)

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "player": self.player.id,
            "name": self.player.name,
            "points": self.points,
            "record": f"{self.wins}-{self.losses}-{self.draws}",
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "byes": self.byes,
            "omw": thousandths(self.omw),
            "oomw": thousandths(self.oomw),
            "tiebreak": self.tiebreak,
            "dropped": self.player.dropped_after is not None,
            "disqualified": self.player.disqualified,
        }


def field3(value: Fraction) -> int:
    """A percentage's three-digit field in the tie-breaker number: thousandths, 100% as 999."""
    return min(999, thousandths(value))


def thousandths(value: Fraction) -> int:
    """A fraction in thousandths, rounded half up (0.7255 -> 726)."""
    scaled = value * 1000
    return int(scaled + Fraction(1, 2)) if scaled >= 0 else -int(-scaled + Fraction(1, 2))


def swiss_rounds(players: int) -> int:
    """The usual number of Swiss rounds for this many players (the organiser may override)."""
    for limit, rounds in ((8, 3), (16, 4), (32, 5), (64, 6), (128, 7), (226, 8), (409, 9)):
        if players <= limit:
            return rounds
    return 10


def records(players: Iterable[Player], matches: Iterable[Match]) -> dict[int, Record]:
    """Each player's record from the matches that have a result."""
    recs = {p.id: Record() for p in players}
    for m in matches:
        if m.result is None:
            continue
        if m.result not in RESULTS:
            raise SwissError("invalid", f"Unknown result {m.result!r}.")
        a = recs[m.a]
        a.played += 1
        if m.b is None:
            a.points += WIN
            a.wins += 1
            a.byes += 1
            continue
        b = recs[m.b]
        b.played += 1
        a.opponents.append(m.b)
        b.opponents.append(m.a)
        for rec, mine in ((a, A_WINS), (b, B_WINS)):
            if m.result == mine:
                rec.points += WIN
                rec.wins += 1
            elif m.result == DRAWN:
                rec.points += DRAW
                rec.draws += 1
            else:  # the other won, or both lost (two no-shows)
                rec.losses += 1
    return recs


def _mean(values: list[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else Fraction(0)


def standings(players: Sequence[Player], matches: Iterable[Match]) -> list[Standing]:
    """Every player ranked: points, OMW%, OOMW%, then registration number."""
    recs = records(players, matches)
    omw = {pid: _mean([recs[o].mwp for o in r.opponents]) for pid, r in recs.items()}
    oomw = {pid: _mean([max(FLOOR, omw[o]) for o in r.opponents]) for pid, r in recs.items()}
    rows = sorted(
        players,
        key=lambda p: (-recs[p.id].points, -omw[p.id], -oomw[p.id], p.id),
    )
    out = []
    for i, p in enumerate(rows, start=1):
        r = recs[p.id]
        out.append(
            Standing(
                i, p, r.points, r.wins, r.losses, r.draws, r.byes, r.mwp, omw[p.id], oomw[p.id]
            )
        )
    return out


# -- pairing --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """A round's pairings: (table, a, b) by table, and the player with the bye (or None)."""

    round: int
    tables: tuple[tuple[int, int, int], ...]
    bye: int | None

    def matches(self) -> list[Match]:
        found = [Match(self.round, a, b, table=t) for t, a, b in self.tables]
        if self.bye is not None:
            found.append(Match(self.round, self.bye, None, A_WINS))
        return found


def shuffled(items: Sequence[int], randbelow: Callable[[int], int]) -> list[int]:
    """Fisher-Yates with the injected source (randbelow(n) in [0, n))."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def pair_round(
    players: Sequence[Player],
    matches: Sequence[Match],
    round_no: int,
    randbelow: Callable[[int], int] | None = None,
) -> Pairing:
    """Pair round `round_no` of the active players.

    With no result yet (round 1), the order is random (`randbelow` required) and neighbours
    meet; later, by the matching described above. Tables are numbered by the rank of their
    higher-ranked player, so the top tables come first."""
    if any(m.result is None for m in matches):
        raise SwissError("results_missing", "Every result must be in before the next pairing.")
    if any(m.round >= round_no for m in matches):
        raise SwissError("already_paired", f"Round {round_no} is already paired.")
    active_ids = {p.id for p in players if p.active_in(round_no)}
    if len(active_ids) < 2:
        raise SwissError("too_few_players", "At least two active players are needed.")
    if not matches:
        if randbelow is None:
            raise SwissError("invalid", "Round 1 needs a random source.")
        order = shuffled(sorted(active_ids), randbelow)
        pairs = [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]
        bye = order[-1] if len(order) % 2 else None
        return Pairing(round_no, tuple((n, a, b) for n, (a, b) in enumerate(pairs, 1)), bye)
    ranked = [s for s in standings(players, matches) if s.player.id in active_ids]
    order = [s.player.id for s in ranked]
    points = {s.player.id: s.points for s in ranked}
    met: set[frozenset[int]] = {frozenset((m.a, m.b)) for m in matches if m.b is not None}
    had_bye = {m.a for m in matches if m.b is None}
    costs = Costs(order, points, met, had_bye)
    pairs, bye = costs.solve()
    rank = {pid: i for i, pid in enumerate(order)}
    pairs = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]
    pairs.sort(key=lambda ab: rank[ab[0]])
    return Pairing(round_no, tuple((n, a, b) for n, (a, b) in enumerate(pairs, 1)), bye)


BYE = -1


@dataclass
class Costs:
    """The cost of each possible pair, and the matching that minimises their sum."""

    order: list[int]
    points: dict[int, int]
    met: set[frozenset[int]]
    had_bye: set[int]

    def __post_init__(self) -> None:
        n = len(self.order)
        top = max(self.points.values(), default=0) - min(self.points.values(), default=0)
        # Each level outweighs every lower level summed over a whole round.
        self.spread_unit = 1
        self.bye_unit = (n // 2 + 1) * top * top + 1
        self.second_bye_unit = self.bye_unit * (n + 1)
        self.rematch_unit = self.second_bye_unit * 2 + self.bye_unit * (n + 1)
        self.big = self.rematch_unit * (n + 1)
        self.rank = {pid: i for i, pid in enumerate(self.order)}

    def pair_cost(self, a: int, b: int) -> int:
        if b == BYE:
            a, b = b, a
        if a == BYE:
            # Cheaper the lower the player is ranked; a second bye costs far more.
            from_bottom = len(self.order) - 1 - self.rank[b]
            second = self.second_bye_unit if b in self.had_bye else 0
            return second + self.bye_unit * from_bottom
        rematch = self.rematch_unit if frozenset((a, b)) in self.met else 0
        return rematch + (self.points[a] - self.points[b]) ** 2

    def _match(self, nodes: list[int], window: int | None) -> list[tuple[int, int]]:
        graph = nx.Graph()
        graph.add_nodes_from(nodes)
        players = [x for x in nodes if x != BYE]
        for i, a in enumerate(players):
            later = players[i + 1 :] if window is None else players[i + 1 : i + 1 + window]
            for b in later:
                graph.add_edge(a, b, weight=self.big - self.pair_cost(a, b))
        if BYE in nodes:
            for a in players:
                graph.add_edge(BYE, a, weight=self.big - self.pair_cost(BYE, a))
        found = nx.max_weight_matching(graph, maxcardinality=True)
        return [(a, b) for a, b in found]

    def solve(self) -> tuple[list[tuple[int, int]], int | None]:
        nodes = list(self.order)
        if len(nodes) <= DENSE_LIMIT:
            if len(nodes) % 2:
                nodes.append(BYE)
            return self._split(self._match(nodes, None))
        return self._split(self._blocks(nodes))

    def _blocks(self, order: list[int]) -> list[tuple[int, int]]:
        """Blocks of about BLOCK players in rank order, top first. A block's unpaired players
        float down into the next; the last block takes the bye. A block whose best matching
        has a rematch or a second bye is merged with the next one and solved again (the last
        one with the blocks above it), with a wider window each time."""
        found: list[tuple[int, int]] = []
        start = 0
        carry: list[int] = []
        while start < len(order) or carry:
            end = min(len(order), start + BLOCK)
            # Do not leave a tiny last block behind.
            if len(order) - end < BLOCK // 2:
                end = len(order)
            nodes = carry + order[start:end]
            last = end == len(order)
            if last and len(nodes) % 2:
                nodes.append(BYE)
            pairs = self._match(nodes, WINDOW)
            if last:
                while self._bad(pairs, nodes) and found:
                    # Take back the lowest blocks' pairs and match them together with this one.
                    back = found[-(BLOCK // 2) :]
                    del found[-(BLOCK // 2) :]
                    nodes = [x for pair in back for x in pair] + nodes
                    nodes.sort(key=lambda x: self.rank.get(x, len(order)))
                    pairs = self._match(nodes, min(len(nodes), WINDOW * 4))
                found.extend(pairs)
                return found
            if self._bad(pairs, nodes):
                pairs = self._match(nodes, None)
            paired = {x for pair in pairs for x in pair}
            # Unpaired players (an odd block, or no valid partner) float to the next block.
            carry = [x for x in nodes if x not in paired]
            # Do not commit pairs of a player with a rematch: float both instead.
            good = [p for p in pairs if not self._bad_pair(*p)]
            carry += [x for p in pairs if p not in good for x in p]
            carry.sort(key=lambda x: self.rank[x])
            found.extend(good)
            start = end
        return found

    def _bad(self, pairs: list[tuple[int, int]], nodes: list[int]) -> bool:
        paired = {x for pair in pairs for x in pair}
        if len(paired) < len(nodes) - len(nodes) % 2:
            return True
        return any(self._bad_pair(a, b) for a, b in pairs)

    def _bad_pair(self, a: int, b: int) -> bool:
        if BYE in (a, b):
            return (b if a == BYE else a) in self.had_bye
        return frozenset((a, b)) in self.met

    @staticmethod
    def _split(found: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], int | None]:
        pairs, bye = [], None
        for a, b in found:
            if BYE in (a, b):
                bye = b if a == BYE else a
            else:
                pairs.append((a, b))
        return pairs, bye


# -- the top cut ----------------------------------------------------------------------------


def bracket_order(size: int) -> list[int]:
    """Seeds in bracket order: 8 -> 1, 8, 4, 5, 2, 7, 3, 6 (1 and 2 meet only in the final)."""
    if size not in (2, *CUT_SIZES):
        raise SwissError("invalid", "A top cut has 4, 8, 16 or 32 players.")
    order = [1, 2]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def top_cut(ranked: Sequence[int], size: int) -> list[tuple[int, int]]:
    """The first round of the cut from player ids in rank order: (seed 1, seed 8), ..."""
    if size not in CUT_SIZES:
        raise SwissError("invalid", "A top cut has 4, 8, 16 or 32 players.")
    if len(ranked) < size:
        raise SwissError("too_few_players", f"A top {size} needs {size} players.")
    seeds = bracket_order(size)
    return [(ranked[seeds[i] - 1], ranked[seeds[i + 1] - 1]) for i in range(0, size, 2)]


def next_cut_round(winners: Sequence[int]) -> list[tuple[int, int]]:
    """The next round of the cut: the winners of neighbouring matches meet."""
    if len(winners) < 2 or len(winners) % 2:
        raise SwissError("invalid", "The bracket needs an even number of winners.")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]

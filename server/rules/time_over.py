"""When time runs out (R5): the time-over procedure, in one place.

Time is called once (`call_time`, from the clock's tick). A duel in progress finishes its turn
(R5.1.1), then plays the Extra Turns (R5.1.2-3); after the last one the higher LP wins the duel,
equal LP go to sudden death or a draw by the rule set (R5.1.4-5, `decide_on_lp`). With no duel
in progress the match is settled at once (R5.2, R5.3, `settle_at_time`): the leader wins, level
wins go to the Extra Duel of 4 turns (R5.2.1), whose equal LP go to sudden death too (R5.2.2).
Level wins after the third duel go to the same Extra Duel (R3.3, `settle_after_last_duel`).

The procedure's stage is a code (`STAGES`, in the view's `time.stage`); every screen puts it
into words from the catalogues (`time.stage.<code>` in web/i18n), and nothing else does.
"""

from __future__ import annotations

from dataclasses import replace

from .base import Event, RuleError, SheetLine, Tx, Words, handler
from .duel_end import close_duel, decide_match
from .ruleset import DRAW, EXTRA_DUEL, SUDDEN_DEATH, RuleSet
from .state import (
    BETWEEN,
    DUEL,
    EXTRA_DUEL_STAGE,
    EXTRA_DUEL_SUDDEN_DEATH,
    EXTRA_TURNS,
    FINISH_TURN,
    PREGAME,
    STAGES,
    SUDDEN_DEATH_STAGE,
    TableState,
    Turn,
)

EXTRA_DUEL_STAGES = (EXTRA_DUEL_STAGE, EXTRA_DUEL_SUDDEN_DEATH)

__all__ = [
    "EXTRA_DUEL_STAGE",
    "EXTRA_DUEL_SUDDEN_DEATH",
    "EXTRA_TURNS",
    "FINISH_TURN",
    "STAGES",
    "SUDDEN_DEATH_STAGE",
    "after_turn",
    "call_time",
    "decide_on_lp",
    "replay_extra_duel",
    "settle_after_last_duel",
    "settle_at_time",
    "stage_turns",
]


def stage_turns(rules: RuleSet, stage: str | None) -> int:
    """How many turns time-over stage `stage` counts, the one place that says it (R5): the
    Extra Duel's turns for its stages (R5.2.1), the Extra Turns for the others (R5.1.2-3); 0
    with no stage. The view (`time.of`), the floor and the score sheet read it from here."""
    if not stage:
        return 0
    return rules.extra_duel_turns if stage in EXTRA_DUEL_STAGES else rules.extra_turns


def _stage(tx: Tx, stage: str, extra_turn: int = 0) -> None:
    """The procedure moves to `stage` (one of `STAGES`: each has its words in the catalogues).
    `of` is how many turns the stage counts (the Extra Turns, or the Extra Duel's), so a
    screen that words the event needs nothing else."""
    if stage not in STAGES:  # a code no screen could word
        raise RuleError("internal", f"Unknown time-over stage {stage!r}.")
    tx.emit(
        "time.stage", stage=stage, extra_turn=extra_turn, of=stage_turns(tx.state.ruleset, stage)
    )


def call_time(tx: Tx) -> None:
    """Time is called, once (R5): the duel in progress finishes its turn (R5.1); with no duel
    in progress the match is settled at once (R5.2, R5.3)."""
    phase = tx.state.phase
    tx.emit("time.called", during=phase)
    if phase == DUEL:
        if tx.state.extra_duel:
            return  # the Extra Duel runs its own 4 turns, time is already over
        _stage(tx, FINISH_TURN)  # R5.1.1
    elif phase in ("registration", PREGAME, BETWEEN):
        settle_at_time(tx)
    # duel_result: settled when the result is confirmed; match_result: nothing to do


def after_turn(tx: Tx, ended: Turn) -> None:
    """The time-over procedure advances at the end of each turn (R5.1, R5.2)."""
    t, rules = tx.state.time, tx.state.ruleset
    if tx.state.extra_duel and t.stage == EXTRA_DUEL_STAGE:
        if ended.no >= rules.extra_duel_turns:  # R5.2.1
            decide_on_lp(tx, extra_duel=True)
        return
    if t.stage == FINISH_TURN:  # R5.1.1-R5.1.3
        if rules.extra_turns > 0:
            _stage(tx, EXTRA_TURNS, 1)
        else:
            decide_on_lp(tx)
    elif t.stage == EXTRA_TURNS:
        if t.extra_turn < rules.extra_turns:
            _stage(tx, EXTRA_TURNS, t.extra_turn + 1)
        else:  # R5.1.4
            decide_on_lp(tx)


def decide_on_lp(tx: Tx, extra_duel: bool = False) -> None:
    """Higher LP wins; equal LP goes to sudden death or a draw, by the rule set (R5.1.4-5)."""
    lp = tx.state.lp
    if lp["A"] != lp["B"]:
        close_duel(tx, "A" if lp["A"] > lp["B"] else "B", "time_lp")
    elif extra_duel:  # R5.2.2
        _stage(tx, EXTRA_DUEL_SUDDEN_DEATH)
    elif tx.state.ruleset.equal_lp_after_extra_turns == SUDDEN_DEATH:
        _stage(tx, SUDDEN_DEATH_STAGE, tx.state.time.extra_turn)
    else:
        close_duel(tx, None, "time_draw")


def settle_after_last_duel(tx: Tx) -> None:
    """R3.1, R3.3 (reading): after the third duel the player with more wins takes the match;
    level wins (a drawn duel among them) go to the Extra Duel of R5.2, or to a drawn match
    where the rule set draws level wins."""
    s = tx.state
    if s.wins["A"] != s.wins["B"]:
        decide_match(tx, "A" if s.wins["A"] > s.wins["B"] else "B", "most_wins")
    elif s.ruleset.level_wins_at_time == EXTRA_DUEL:
        _stage(tx, EXTRA_DUEL_STAGE)
    else:
        decide_match(tx, None, "level_wins")


def settle_at_time(tx: Tx) -> None:
    """Time with no duel in progress: the leader wins, level wins go to an Extra Duel
    (R5.2, R5.3, R5.4) or a draw, by the rule set."""
    s = tx.state
    if s.wins["A"] != s.wins["B"] and s.ruleset.lead_wins_between_duels:
        decide_match(tx, "A" if s.wins["A"] > s.wins["B"] else "B", "time_lead")
    elif s.ruleset.level_wins_at_time == EXTRA_DUEL:
        _stage(tx, EXTRA_DUEL_STAGE)
        if s.phase == PREGAME:
            tx.emit("pregame.opened", duel=s.duel_no, chooser=None)
    elif s.ruleset.level_wins_at_time == DRAW:
        decide_match(tx, None, "time_draw")


def replay_extra_duel(tx: Tx) -> None:
    """A drawn Extra Duel is played again (R5.2): its stage is set up anew."""
    _stage(tx, EXTRA_DUEL_STAGE)


@handler(
    "time.stage",
    {"stage": "str", "extra_turn": "int", "of": "int"},
    words=Words(params={"stage": ("stage", "stage")}),
    sheet=SheetLine(step="time_stage"),
)
def _staged(s: TableState, e: Event) -> TableState:
    t = replace(s.time, stage=e.data["stage"], extra_turn=e.data.get("extra_turn", 0))
    extra = s.extra_duel or e.data["stage"] == EXTRA_DUEL_STAGE
    return s.evolve(time=t, extra_duel=extra)

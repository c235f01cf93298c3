"""The pure rules core of Duel Table.

No I/O here: this package imports no Flask, peewee, marshmallow, json, time or random. The
caller passes the server time (``now_ms``) and a random source (``randbelow``); commands
return events, and one handler per event type applies it. ``tests/test_rules_purity.py``
checks the imports."""

from .base import (
    COMMANDS,
    DECLARATIONS,
    EVENTS,
    SEATS,
    Actor,
    Declaration,
    Event,
    EventDeclaration,
    RuleError,
    admit,
    other,
)
from .clock import next_due_ms
from .ruleset import RULESETS, RuleSet, get_ruleset
from .state import EMPTY, TableState
from .table import Decision, apply, choose_seat, create_events, decide, decision, facts, replay
from .view import event_for, view

__all__ = [
    "COMMANDS",
    "DECLARATIONS",
    "EVENTS",
    "EventDeclaration",
    "Declaration",
    "admit",
    "EMPTY",
    "RULESETS",
    "SEATS",
    "Actor",
    "Event",
    "RuleError",
    "RuleSet",
    "TableState",
    "apply",
    "choose_seat",
    "create_events",
    "Decision",
    "decide",
    "decision",
    "facts",
    "event_for",
    "get_ruleset",
    "next_due_ms",
    "other",
    "replay",
    "view",
]

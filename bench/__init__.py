"""Load benchmark of the table websocket: `python -m bench` (see docs/performance.md)."""

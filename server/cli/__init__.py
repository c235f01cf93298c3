"""The command line: `python -m server` and its sub-commands (serve, staff, banlist, verify)."""

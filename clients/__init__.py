"""Clients of a running Duel Table server for tests, the bench and the reliability runs: a
server process in a temporary directory and the socket protocol spoken as a phone does."""

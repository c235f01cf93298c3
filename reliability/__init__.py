"""Reliability harness: crash recovery, fuzzing and access checks against the real server.

`python -m reliability` starts the server as a separate process, drives tables over real
websockets, kills the server with SIGKILL at random moments, and checks afterwards that nothing
acknowledged was lost or applied twice and that every table's state is the replay of its log.
"""

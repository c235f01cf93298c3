"""The application layer: each use case loads through the store, asks the rules, stores and
publishes. The table service (commands in, published views out), the tournament service
(logins, events, rounds, judges' results), the Swiss service, the seat service (claims, joins,
requests), ban lists and card names, opening the database, the fan-out hub and the round timer.
Built once per app by the app factory (`server/__init__.py`); the edge calls them."""

"""The web app's server: the master of many games, its store, its watchers and its API.

Its rooms, each of one kind, with imports that run downwards only:

- `http/`: how the server talks to the world (the API's app and routes, the WebSocket outbox,
  errors, origin and security checks);
- `community/`: what players share beyond a game (accounts, ratings, results, players, the
  daily challenge, puzzles, analyses);
- `storage/`: what the server keeps (the SQL store, its models and migrations, backups);
- `runtime/`: what keeps a server process running (the work queue over its worker processes,
  the bus between processes, the rate limits, metrics, logs, the collector, the lifeline);
- `services.py` wires one app's parts together, `settings.py` is what an operator sets.

The pages for people (dicepoker.web) sit on top and use the server's services; the server
never imports them (dicepoker.site puts the two together).
"""

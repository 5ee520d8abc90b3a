"""The web app's routes, one router per job: games, records, variants, the WebSocket."""

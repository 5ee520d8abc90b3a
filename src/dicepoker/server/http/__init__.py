"""How the server talks to the world: the app, its routes, errors, limits and the WebSocket
outbox."""

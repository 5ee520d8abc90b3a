"""`dicepoker serve`: the web app's options, and how its processes start."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from dicepoker.clitools import fail


def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            help="SQLite file or database URL (default: $DATABASE_URL, else a SQLite file "
            "in the user data folder)."
        ),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(min=0, help="Seconds a bot waits before each action (0: instant).")
    ] = 0.6,
    redis_url: Annotated[
        str | None,
        typer.Option(
            envvar="REDIS_URL",
            help="Redis for several server processes on one PostgreSQL database "
            "(docs/deploy.md; default: $REDIS_URL, else one process on its own).",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1, help="Server processes on this port (more than one needs PostgreSQL and Redis)."
        ),
    ] = 1,
    bot_workers: Annotated[
        int,
        typer.Option(
            min=0,
            help=(
                "Worker processes that may think for bots at once; two more serve the hints,"
                " chances and analyses (N: N + 2 processes sharing one work queue; 0: all of"
                " them in threads of the server)."
            ),
        ),
    ] = 1,
    ws_rate: Annotated[
        float,
        typer.Option(min=0, help="WebSocket messages a second per connection (0: no limit)."),
    ] = 10.0,
    ws_burst: Annotated[
        int, typer.Option(min=1, help="WebSocket messages a connection may send at once.")
    ] = 20,
    ws_connections: Annotated[
        int,
        typer.Option(
            min=0,
            help="Open game WebSockets per client address, over every process sharing the "
            "Redis (0: no cap).",
        ),
    ] = 50,
    header_timeout: Annotated[
        float,
        typer.Option(
            min=0,
            help="Seconds a connection has to send a request's headers before it is closed "
            "(0: no limit).",
        ),
    ] = 10.0,
    keep_alive: Annotated[
        int,
        typer.Option(min=1, help="Seconds an idle connection is kept open between requests."),
    ] = 5,
    http_rate: Annotated[
        float,
        typer.Option(
            min=0,
            help="Games, joins and record imports a second per client address (0: no limit).",
        ),
    ] = 0.5,
    http_burst: Annotated[
        int, typer.Option(min=1, help="Games, joins and imports a client address may make at once.")
    ] = 20,
    analysis_rate: Annotated[
        float,
        typer.Option(
            min=0, help="Advice and analysis requests a second per client address (0: no limit)."
        ),
    ] = 2.0,
    analysis_burst: Annotated[
        int, typer.Option(min=1, help="Advice and analysis requests an address may make at once.")
    ] = 30,
    login_rate: Annotated[
        float,
        typer.Option(min=0, help="Sign-ups and logins a second per client address (0: no limit)."),
    ] = 0.2,
    login_burst: Annotated[
        int, typer.Option(min=1, help="Sign-ups and logins a client address may make at once.")
    ] = 10,
    login_name_rate: Annotated[
        float,
        typer.Option(
            min=0,
            help="Failed logins (wrong passwords) a second per account name (0: no limit).",
        ),
    ] = 0.05,
    login_name_burst: Annotated[
        int, typer.Option(min=1, help="Failed logins an account name may have at once.")
    ] = 5,
    max_record_bytes: Annotated[
        int, typer.Option(min=1024, help="Largest record the server imports, in bytes.")
    ] = 1024 * 1024,
    max_record_turns: Annotated[
        int, typer.Option(min=1, help="Most turns a record the server imports may have.")
    ] = 2000,
    abandon_after: Annotated[
        float,
        typer.Option(
            min=0,
            metavar="HOURS",
            help="Close a game as abandoned after this many hours with no move of a person "
            "(0: never; docs/deploy.md).",
        ),
    ] = 24.0,
    win_probability: Annotated[
        bool,
        typer.Option(
            help="Judge each seat's chance of winning after every event of a game with rivals "
            "(a worker's CPU; docs/capacity.md).",
        ),
    ] = True,
    metrics: Annotated[
        bool, typer.Option(help="Serve Prometheus metrics at /metrics (docs/deploy.md).")
    ] = False,
    metrics_token: Annotated[
        str | None,
        typer.Option(
            envvar="DICEPOKER_METRICS_TOKEN",
            help="Answer /metrics only to this bearer token (default: $DICEPOKER_METRICS_TOKEN).",
        ),
    ] = None,
    log_json: Annotated[
        bool, typer.Option(help="Log one JSON object per line, each with its request's id.")
    ] = False,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            envvar="FORWARDED_ALLOW_IPS",
            help="Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: addresses "
            "or networks, comma separated, or '*' (default: $FORWARDED_ALLOW_IPS, else none).",
        ),
    ] = "",
) -> None:
    """Start the web app (games, lobby, API, WebSocket) with its database migrated."""
    import uvicorn

    from dicepoker.server.http.timeouts import header_deadline
    from dicepoker.server.runtime.lifeline import GRACEFUL_STOP_SECONDS, PARENT_ENV
    from dicepoker.server.runtime.logs import json_log_config
    from dicepoker.server.storage.store import database_url
    from dicepoker.site import SETTINGS_ENV, Settings, create_app, default_database

    proxies = trusted_proxies(forwarded_allow_ips)
    settings = Settings(
        database=db or default_database(),
        bot_delay=bot_delay,
        redis_url=redis_url or None,
        bot_workers=bot_workers,
        ws_rate=ws_rate,
        ws_burst=ws_burst,
        ws_connections=ws_connections,
        http_rate=http_rate,
        http_burst=http_burst,
        analysis_rate=analysis_rate,
        analysis_burst=analysis_burst,
        login_rate=login_rate,
        login_burst=login_burst,
        login_name_rate=login_name_rate,
        login_name_burst=login_name_burst,
        max_record_bytes=max_record_bytes,
        max_record_turns=max_record_turns,
        win_probability=win_probability,
        metrics=metrics,
        metrics_token=metrics_token or None,
        abandon_after=abandon_after,
    )
    if workers > 1 and (database_url(settings.database).startswith("sqlite") or not redis_url):
        fail("--workers above 1 needs a PostgreSQL --db and --redis-url (see docs/deploy.md)")
    # No per-message compression: a state is a few kilobytes, and deflating it for every
    # socket cost more CPU than anything else in sending it (benchmarks/load.py).
    options: dict[str, Any] = {
        "log_level": "warning",
        "ws_max_size": 64 * 1024,
        "ws_per_message_deflate": False,
        # A connection must send its headers within --header-timeout (uvicorn has no such
        # deadline: dicepoker.server.http.timeouts), and is closed after --keep-alive idle seconds.
        "http": header_deadline(header_timeout),
        "timeout_keep_alive": keep_alive,
        # A stop (SIGTERM, a deploy, the supervisor's death) waits this long for the requests
        # running, then cancels them: an analysis may take tens of seconds, and a stop that
        # waited for every request could wait for ever (dicepoker.server.runtime.lifeline).
        "timeout_graceful_shutdown": GRACEFUL_STOP_SECONDS,
        # Given explicitly: uvicorn would otherwise trust 127.0.0.1 (or $FORWARDED_ALLOW_IPS
        # as uvicorn reads it), letting any local process name the client address.
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": proxies,
    }
    if log_json:  # uvicorn says where it serves, in JSON; requests are logged with their ids
        options.update(log_config=json_log_config(), log_level="info", access_log=False)
    else:
        # Said once, before the server's start: where the games are kept (the first thing a
        # person who runs ./scripts/start asks after the address) and where to open them.
        typer.echo(f"dicepoker: database: {database_words(settings.database)}", err=True)
        typer.echo("dicepoker: migrating its schema to this version as it starts", err=True)
        typer.echo(f"dicepoker: serving on http://{host}:{port}", err=True)
    if workers == 1:
        uvicorn.run(create_app(settings), host=host, port=port, **options)
        return
    # Each server process builds its own app from the same settings, and ends when this
    # supervisor dies, however it dies (dicepoker.server.runtime.lifeline).
    os.environ[SETTINGS_ENV] = settings.to_json()
    os.environ[PARENT_ENV] = str(os.getpid())
    uvicorn.run(
        "dicepoker.site:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        **options,
    )


def database_words(database: str) -> str:
    """Where the database is, for a person: a SQLite file's absolute path, else its URL without
    the password."""
    from sqlalchemy.engine import make_url

    from dicepoker.server.storage.store import database_url

    url = database_url(database)
    if url.startswith("sqlite"):
        return "SQLite file " + url.split(":///", 1)[1]
    return make_url(url).render_as_string(hide_password=True)


def trusted_proxies(value: str) -> str:
    """`--forwarded-allow-ips` checked and normalised for uvicorn: '' (trust no proxy), '*', or
    comma-separated addresses and networks. uvicorn would take a misspelt entry as a literal
    name that never matches, silently trusting nobody; here it is refused."""
    import ipaddress

    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    if entries == ["*"]:
        return "*"
    normal = []
    for entry in entries:
        try:  # a network is written as uvicorn parses it: 10.0.0.1/8 becomes 10.0.0.0/8
            if "/" in entry:
                normal.append(str(ipaddress.ip_network(entry, strict=False)))
            else:
                normal.append(str(ipaddress.ip_address(entry)))
        except ValueError:
            fail(
                f"--forwarded-allow-ips: {entry!r} is not an IP address or network "
                "(give addresses or networks separated by commas, or '*' alone)"
            )
    return ",".join(normal)

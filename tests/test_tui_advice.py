"""The terminal's hint is the web's: joined to a game of the web app, H shows the advice the
server gives the web table (`GET /api/games/{id}/advice` with the seat's token), best first as
the web marks it, never the immediate points alone. A real server; the terminal at 80x24."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from dicepoker.tui import PlayApp, RemoteSession, game_address
from dicepoker.tui.hints import ExpectedScoreAdvisor, advice_hints
from live_server import LiveServer
from tui_support import run, table, until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path_factory.mktemp("db") / "games.db")).start()
    yield live
    live.stop()


def test_joined_hints_are_the_servers_advice(server: LiveServer) -> None:
    # School with a rival: the expert ranks by its chance-minded measure, not the top score.
    body = {
        "variant": "school",
        "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
    }
    response = server.post("/api/games", body)
    assert response.status_code == 201, response.text
    game = response.json()
    token = game["seats"][0]["token"]
    session = RemoteSession(game_address(server.url, game["id"]), token)
    app = PlayApp(session, lang="en", show_hints=True, advisor=ExpectedScoreAdvisor())

    def served() -> bool:
        """Whether the panel shows the expert's values (the server's answer has come)."""
        state = table(app).table
        hints = state.hints if state is not None else None
        return hints is not None and hints.title == ExpectedScoreAdvisor.TITLE and bool(hints.hints)

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: session.view is not None and session.my_turn)
            await pilot.press("r")
            await until(pilot, lambda: session.view is not None and session.view["turn"]["rolls"])
            await until(pilot, served)
            state = table(app).table
            assert state is not None and state.hints is not None and state.hints.hints
            async with httpx.AsyncClient(timeout=30) as client:
                answer = await client.get(
                    f"{server.url}/api/games/{game['id']}/advice",
                    headers={"Authorization": f"Bearer {token}"},
                )
            assert answer.status_code == 200, answer.text
            advice = answer.json()
            view = session.view
            assert view is not None
            shown = [hint.action for hint in state.hints.hints]
            assert shown[0] == advice["best"]["action"]
            assert shown == [hint.action for hint in advice_hints(view, advice)]
            values = {o["action"]: o["value"] for o in advice["options"]}
            assert all(hint.value == values[hint.action] for hint in state.hints.hints)
            # Holds and rolls too, which the view alone (the immediate points) cannot value.
            assert any(not action.startswith(("score", "zero", "strike")) for action in shown)
            assert "Hints · expected" in app.screen_text()
        await session.close()

    run(scenario)

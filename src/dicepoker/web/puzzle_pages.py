"""The puzzles' page (`/puzzles`, `/puzzles/{id}`): a position of a real game to solve, drawn by
its script (static/js/puzzles.js) from the API (docs/api.md, "Puzzles") with the table's own
dice tray and sheets. `?preset=` picks the game; a puzzle's own address opens that puzzle.
"""

from __future__ import annotations

import re
from typing import Final

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from dicepoker.rules import DEFAULT_VARIANT, variant_names
from dicepoker.web.pages import render

router = APIRouter(include_in_schema=False)

_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def _preset(request: Request) -> str:
    asked = request.query_params.get("preset")
    return asked if asked in variant_names() else DEFAULT_VARIANT


@router.get("/puzzles", response_class=HTMLResponse)
async def puzzles(request: Request) -> HTMLResponse:
    """A puzzle of the preset chosen (`?preset=`), picked by the page."""
    return await render(
        request, "puzzles.html", "Puzzles", page="puzzles", preset=_preset(request), puzzle_id=""
    )


@router.get("/puzzles/{puzzle_id}", response_class=HTMLResponse)
async def puzzle(request: Request, puzzle_id: str) -> HTMLResponse:
    """One puzzle, by its address (the page says when there is no such puzzle)."""
    if not _ID.match(puzzle_id):
        raise HTTPException(status_code=404, detail="not found")
    return await render(
        request,
        "puzzles.html",
        "Puzzles",
        page="puzzles",
        preset=_preset(request),
        puzzle_id=puzzle_id,
    )

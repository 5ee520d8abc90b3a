"""Puzzles from real games (docs/api.md, "Puzzles"): a position to solve, and the advisor's
verdict on a guess.

A puzzle is sent without the values of its options; a guess is answered with every option's
value, computed by the advisor when it is asked (dicepoker.server.community.puzzles.judge), in a
worker thread and under the same per-address limit as the advisor and the analyses.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from dicepoker.master import Refusal
from dicepoker.protocol import Puzzle, PuzzleAnswer, PuzzleGuess, error_responses
from dicepoker.rules import variant_names
from dicepoker.server.services import ANALYSING, Services, services

router = APIRouter(prefix="/api/puzzles", tags=["puzzles"])

App = Annotated[Services, Depends(services)]


@router.get("/next", response_model=Puzzle, responses=error_responses(400, 404))
async def next_puzzle(
    app: App,
    preset: Annotated[str, Query(description="the variant: school, yahtzee, ...")],
    after: Annotated[
        str | None, Query(max_length=32, description="the puzzle just seen: not this one again")
    ] = None,
) -> Puzzle:
    """A puzzle of the preset, picked at random (not `after`, unless it is the only one);
    404 `no_puzzle` while the preset has none."""
    if preset not in variant_names():
        raise Refusal("bad_request", f"preset: no such preset {preset!r}")
    return await app.puzzles.next(preset, after)


@router.get("/{puzzle_id}", response_model=Puzzle, responses=error_responses(404))
async def get_puzzle(puzzle_id: str, app: App) -> Puzzle:
    """One puzzle (its page, `/puzzles/{id}`)."""
    return await app.puzzles.get(puzzle_id)


@router.post(
    "/{puzzle_id}",
    dependencies=ANALYSING,
    response_model=PuzzleAnswer,
    responses=error_responses(400, 404, 413, 429),
)
async def answer_puzzle(puzzle_id: str, body: PuzzleGuess, app: App) -> PuzzleAnswer:
    """Judge a guess: every option's value, the best one, the guess's loss and the verdict;
    400 `bad_move` (with the engine's reason) for an option that is not legal here."""
    return await app.puzzles.answer(puzzle_id, body.action)

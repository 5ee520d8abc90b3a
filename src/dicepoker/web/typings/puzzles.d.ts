// The puzzles' answers (docs/api.md, "Puzzles"; dicepoker.protocol.puzzles). Types for
// TypeScript's check of the page scripts only (`bash scripts/check-js`); no page loads this file.

/** A position of a real game to solve: GET /api/puzzles/next and GET /api/puzzles/{id}. */
interface Puzzle {
  id: string;
  url: string;
  preset: string;
  pool: string;
  variant: string;
  options: Record<string, unknown>;
  /** The seat to move: the one the puzzle asks about. */
  seat: number;
  /** The game's turn (1-based, every player's turns counted). */
  turn: number;
  /** The rolls already made in this turn. */
  roll: number;
  state: GameView;
  /** Every legal option, in notation, unvalued. */
  actions: string[];
}

/** An option with its values, as the advisor gives them when a guess is judged. */
interface PuzzleOption {
  action: string;
  value: number;
  worth?: number;
  win?: number;
  loss: number;
}

/** POST /api/puzzles/{id}: every option valued, the best first, and the verdict on the guess. */
interface PuzzleAnswer {
  id: string;
  action: string;
  method: "solver" | "expectimax";
  verdict: "best" | "good" | "mistake";
  loss: number;
  good_within: number;
  best: PuzzleOption;
  chosen: PuzzleOption;
  played: PuzzleOption | null;
  options: PuzzleOption[];
}

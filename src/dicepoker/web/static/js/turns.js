// Where a game is, said the same way by every page: "Turn 12 of 15 · Ana · roll 2". The turn is
// the round of the player to move (the cells they have filled, plus one, of as many rounds as a
// sheet has cells), never the record's turn index, which counts every player's turns; the server
// says the same of a decision or a roll (`round` and `rounds`, dicepoker.view.turn_count).
/** @import { GameView, RulesView, SheetView } from "../../typings/protocol" */
import { num, t } from "./common.js";

/**
 * The rounds of a game of these rules: a turn fills one cell, so a sheet's cells.
 * @param {RulesView} rules
 */
export function roundsOf(rules) {
  return rules.rows.length * rules.columns;
}

/**
 * The sheet the player to move fills now: their tie-break sheet while a tie-break is on.
 * @param {GameView} state
 * @param {number} seat
 * @returns {SheetView | undefined}
 */
function sheetOf(state, seat) {
  if (state.tiebreak && state.tiebreak.sheets[String(seat)]) return state.tiebreak.sheets[String(seat)];
  return state.sheets[seat];
}

/**
 * The round of the player to move, the number of rounds and whose turn it is (null once the
 * game is over).
 * @param {GameView} state
 * @returns {{ round: number, rounds: number, seat: number } | null}
 */
export function turnCount(state) {
  const turn = state.turn;
  if (!turn || state.finished) return null;
  const rounds = roundsOf(state.rules);
  const sheet = sheetOf(state, turn.seat);
  if (!sheet || rounds <= 0) return null;
  let filled = 0;
  for (const row of sheet.rows) for (const cell of row.cells) if (cell) filled += 1;
  return { round: Math.min(filled + 1, rounds), rounds, seat: turn.seat };
}

/**
 * A position in words: "Turn 12 of 15 · Ana · roll 2". The name and the roll are left out where
 * not given (a roll of 0: before the turn's first roll); "Turn 12" where the rounds are unknown.
 * @param {{ round: number, rounds?: number | null, name?: string | null, roll?: number | null }} where
 */
export function turnLabel(where) {
  const parts = [where.rounds ? t("Turn {n} of {total}", { n: num(where.round), total: num(where.rounds) }) : t("Turn {n}", { n: num(where.round) })];
  if (where.name) parts.push(where.name);
  if (where.roll) parts.push(t("roll {n}", { n: num(where.roll) }));
  return parts.join(" · ");
}

// The stars overview: per star of the rules (a row's, a column's), whether it is still open,
// taken (by whom, for how much) or out of reach of the player this page plays. Read from the
// view: the rules say which rows and columns have a star, the sheets' `bonuses` who earned each,
// a sheet's own star marks whether it is still in that player's reach.
/** @import { GameView, SheetView, StarView } from "../../typings/protocol" */
import { clear, h, signed, t } from "./common.js";
import { playerName } from "./game.js";
import { starName } from "./movelog.js";

/** @type {HTMLElement | null} */
let box = null;

/**
 * The overview's card, made once and put in `parent`.
 * @param {HTMLElement} parent
 */
export function mountStars(parent) {
  if (box) return box;
  // (focusable: on a phone its one row scrolls sideways, and a keyboard must reach it)
  box = h("ul", { id: "star-board", class: "star-board", "aria-labelledby": "star-board-title", tabindex: "0" });
  parent.appendChild(h("section", { class: "events-card stars-card", hidden: true }, h("h2", { id: "star-board-title", class: "events-title" }, t("Stars")), box));
  return box;
}

/**
 * One star's entry: who took it, else its status on `me`'s sheet (a spectator: on nobody's).
 * @param {GameView} state
 * @param {string | number} key
 * @param {(sheet: SheetView) => StarView | null} starOf
 * @param {number | null} me
 */
function entry(state, key, starOf, me) {
  const rules = state.rules;
  let taker = -1;
  let value = 0;
  state.sheets.forEach((sheet, seat) => {
    for (const [kind, bonusKey, bonusValue] of sheet.bonuses || []) {
      if (bonusKey === key && (kind === "column") === (typeof key === "number")) {
        taker = seat;
        value = bonusValue;
      }
    }
  });
  let status = "open";
  let words = t("open");
  if (taker >= 0) {
    status = taker === me ? "mine" : "taken";
    words = t("taken by {name}: {value}", { name: playerName(taker), value: signed(value) });
  } else {
    const seats = me === null ? state.sheets.map((_, seat) => seat) : [me];
    const struck = seats.every((seat) => {
      const star = state.sheets[seat] ? starOf(state.sheets[seat]) : null;
      return Boolean(star) && star !== null && star.status === "struck";
    });
    if (struck) {
      status = "gone";
      words = me === null ? t("out of everyone's reach") : t("out of your reach");
    }
  }
  return h("li", { class: `star-entry star-${status}` },
    h("span", { class: "star-mark", "aria-hidden": "true" }, "★"),
    h("span", { class: "star-name" }, starName(rules, key)),
    h("span", { class: "star-status" }, words));
}

/**
 * Draw the overview for the position `state`, seen by seat `me` (null: a spectator).
 * @param {GameView} state
 * @param {number | null} me
 */
export function renderStars(state, me) {
  if (!box) return;
  const rules = state.rules;
  const card = box.parentElement;
  if (card) card.hidden = !rules.stars;
  if (!rules.stars) return;
  clear(box);
  rules.rows.forEach((row, index) => {
    if (!row.star) return;
    box?.appendChild(entry(state, row.id, (sheet) => (sheet.rows[index] ? sheet.rows[index].star : null), me));
  });
  if (rules.column_stars) {
    for (let column = 0; column < rules.columns; column += 1) {
      box.appendChild(entry(state, column, (sheet) => (sheet.column_stars ? sheet.column_stars[column] : null), me));
    }
  }
}

// The hint: the advisor's values for the seat to move (GET /api/games/{id}/advice), drawn on
// the dice the best hold keeps, on every cell that may be filled now, and in a panel that says
// what the best roll and the best cell are worth (expected final score). A competitive game (rated,
// a daily challenge, a casual game made without hints) has no hint: the table shows a badge and
// says why instead, and never asks the server for advice it refuses (docs/fair-play.md).
/** @import { AdviceOption, GameAdvice, GameView } from "../../typings/protocol" */
import { $, api, clear, dec, h, minus, t, toast } from "./common.js";
import { actionNode, isCellAction, keptPositions } from "./analysis.js";
import { myTurn } from "./actions.js";
import { game, gameId, held, heldAction, redraw } from "./game.js";
import { mySeats } from "./socket.js";

const HINT_KEY = "dicepoker:hint";
/**
 * Whether the hint is on, the advice for the position drawn (or asked, or failed), and what the
 * panel shows now (redrawn only when that changes).
 * @type {{ on: boolean, data: GameAdvice | null, asked: number, failed: boolean, drawn: string | null }}
 */
const hint = { on: savedHint(), data: null, asked: -1, failed: false, drawn: null };

function savedHint() {
  try {
    return localStorage.getItem(HINT_KEY) === "1";
  } catch {
    return false;
  }
}

/** Whether this game is played without the expert's help. */
export function hintsOff() {
  return !game.assisted;
}

/** Why the game has no hints, in a line: rated, a daily challenge, or made without hints. */
export function hintsOffText() {
  if (game.competition === "rated") return t("Hints are off in this game: it is rated.");
  if (game.competition === "daily") return t("Hints are off in this game: it is a daily challenge.");
  return t("Hints are off in this game: it was made without them.");
}

/** The badge by the title: "Rated", "Daily challenge" or "No hints"; none in an assisted game. */
export function renderBadge() {
  const badge = $("#help-badge");
  const off = hintsOff();
  badge.hidden = !off;
  if (!off) return;
  badge.textContent = game.competition === "rated" ? t("Rated") : game.competition === "daily" ? t("Daily challenge") : t("No hints");
  badge.dataset.competition = game.competition || "casual";
  badge.title = hintsOffText();
  $("#keys-hint-hint").hidden = true;
}

/** Turn the hint on or off (remembered in this browser); in a game without hints, say why. */
export function toggleHint() {
  if (hintsOff()) {
    toast(hintsOffText(), "info");
    return;
  }
  if (!mySeats().length) return;
  hint.on = !hint.on;
  try {
    localStorage.setItem(HINT_KEY, hint.on ? "1" : "0");
  } catch {
    /* private mode: the choice lasts as long as the page */
  }
  hint.asked = -1;
  hint.failed = false;
  redraw();
}

/** Ask for the advice of the position drawn now; answers for an older position are dropped. */
async function fetchAdvice() {
  const seq = game.seq;
  hint.asked = seq;
  hint.failed = false;
  const result = await api("GET", `/api/games/${encodeURIComponent(gameId)}/advice`);
  if (hint.asked !== seq) return; // asked again since
  const data = /** @type {GameAdvice | null} */ (result.ok ? result.data : null);
  if (data && typeof data.seq === "number" && Array.isArray(data.options)) {
    if (data.seq >= game.seq) hint.data = data;
  } else if (seq === game.seq) {
    hint.failed = true;
  }
  redraw();
}

/**
 * The advisor's measure of an option: its expected final score, or in a School game with rivals
 * (a margin for risk; in the last turns also the chance of winning) the `worth` it ranks by.
 * @param {AdviceOption} option
 */
function worth(option) {
  return option.worth ?? option.value;
}

/**
 * The best of `options` (on a tie, the one whose action is `prefer`).
 * @param {AdviceOption[]} options
 * @param {string | null} prefer
 */
function bestOf(options, prefer) {
  /** @type {AdviceOption | null} */
  let best = null;
  for (const option of options) {
    if (!best || worth(option) > worth(best) + 1e-9) best = option;
    else if (prefer && option.action === prefer && Math.abs(worth(option) - worth(best)) <= 1e-9) best = option;
  }
  return best;
}

/**
 * " · 87% to win": an option's chance of winning, where the advisor gives one.
 * @param {AdviceOption | null | undefined} option
 */
function chanceNode(option) {
  if (!option || option.win === undefined) return null;
  const percent = `${Math.round(option.win * 100)}%`;
  return h("span", { class: "adv-win" }, ` · ${t("{percent} chance to win", { percent })}`);
}

/**
 * "(−4.1)": how far `value` falls below the best option (nothing when it is as good).
 * @param {number | null} best
 * @param {number} value
 */
function gapBelow(best, value) {
  const gap = best === null ? 0 : best - value;
  return gap > 0.05 ? h("span", { class: "adv-gap", title: t("{points} below the best option", { points: dec(gap) }) }, ` (${minus(gap)})`) : null;
}

/**
 * One line of the panel: a label, an action, its expected final score and what follows.
 * @param {string} cls
 * @param {string} label
 * @param {Child} content
 * @param {number | null} value
 * @param {Child} [extra]
 */
function adviceLine(cls, label, content, value, extra) {
  return h("p", { class: `adv-line ${cls}` },
    cls.includes("top") ? h("span", { class: "adv-star", "aria-hidden": "true" }, "★") : null,
    h("span", { class: "adv-label" }, label),
    " ",
    content,
    value === null ? null : h("span", { class: "adv-arrow", "aria-hidden": "true" }, " → "),
    value === null ? null : h("span", { class: "sr-only" }, `, ${t("expected final score")} `),
    value === null ? null : h("span", { class: "adv-value" }, dec(value)),
    extra || null);
}

/**
 * Draw the hint of the position, or hide it (off, or not this browser's turn).
 * @param {GameView} state
 */
export function renderAdvice(state) {
  const turn = myTurn();
  const player = mySeats().length > 0 && game.status === "running" && !state.finished;
  const off = hintsOff();
  const button = $("#hint-button");
  button.hidden = !player || off;
  button.setAttribute("aria-pressed", hint.on ? "true" : "false");
  const offLine = $("#hints-off");
  offLine.hidden = !player || !off;
  if (!offLine.hidden) offLine.textContent = hintsOffText();
  const panel = $("#advice");
  const on = hint.on && Boolean(turn) && !off;
  panel.hidden = !on;
  $("#table-layout").classList.toggle("hinting", on);
  for (const die of document.querySelectorAll("#dice .die.advised")) die.classList.remove("advised");
  $("#dice").classList.remove("stop-best");
  if (!on || !turn) {
    hint.drawn = null;
    return;
  }
  if ((!hint.data || hint.data.seq !== game.seq) && hint.asked !== game.seq) fetchAdvice();
  const data = hint.data && hint.data.seq === game.seq && hint.data.seat === turn.seat ? hint.data : null;
  const rules = state.rules;
  const variant = rules.variant;
  const faces = rules.face_labels;
  const options = data ? data.options : [];
  const rolls = options.filter((o) => !isCellAction(o.action));
  const cells = options.filter((o) => isCellAction(o.action));
  const chosen = turn.rolls > 0 ? heldAction() : "roll";
  const bestRoll = bestOf(rolls, chosen);
  const bestCell = bestOf(cells, null);
  const stop = data && data.best ? isCellAction(data.best.action) : false;
  const top = data && data.best ? worth(data.best) : null; // the best option's worth (★)

  // The dice the best hold keeps, and the value of every cell that may be filled now.
  if (bestRoll && turn.rolls > 0) {
    $("#dice").classList.toggle("stop-best", stop); // the best hold, though stopping is better
    const tray = document.querySelectorAll("#dice .die");
    for (const index of keptPositions(bestRoll.action)) {
      const die = tray[index];
      if (!die) continue;
      die.classList.add("advised");
      die.setAttribute("aria-label", `${die.getAttribute("aria-label")}, ${t("the hint keeps it")}`);
    }
  }
  if (bestCell) {
    const byAction = new Map(cells.map((o) => [o.action, o]));
    for (const move of document.querySelectorAll("#main-sheet td.legal button.move")) {
      if (!(move instanceof HTMLElement)) continue;
      const action = move.dataset.action || "";
      const option = byAction.get(action);
      if (!option) continue;
      const value = option.value;
      const best = action === bestCell.action;
      const gap = worth(bestCell) - worth(option);
      move.classList.add("advised-cell");
      move.classList.toggle("advised-best", best);
      // (The space keeps the cell's text "2 0.0", not "20.0", for what reads it as one string.)
      move.appendChild(h("span", { class: "adv", "aria-hidden": "true" }, best ? "★" : ` ${minus(gap)}`));
      // The gap the cell shows comes right after its own name, the words in parentheses: the
      // name holds what is seen, in its order (axe label-content-name-mismatch).
      const said = best
        ? `; ${t("best cell")}, ${t("expected final score")} ${dec(value)}`
        : `, ${minus(gap)} (${t("{points} below the best cell", { points: dec(gap) })}, ${t("expected final score")} ${dec(value)})`;
      move.setAttribute("aria-label", `${move.getAttribute("aria-label") || ""}${said}`);
      const chance = option.win === undefined ? "" : ` · ${t("{percent} chance to win", { percent: `${Math.round(option.win * 100)}%` })}`;
      move.title = `${t("expected final score")}: ${dec(value)}${chance}`;
      move.dataset.value = String(value);
    }
  }

  // The panel, redrawn only when what it says changes.
  const key = JSON.stringify([game.seq, data ? data.seq : null, hint.failed, chosen, turn.rolls, game.pending ? 1 : 0]);
  if (key === hint.drawn) return;
  hint.drawn = key;
  clear(panel);
  const head = h("p", { class: "adv-head" }, h("span", { class: "adv-title" }, t("Hint")), h("span", { class: "adv-caption" }, t("expected final score")));
  panel.appendChild(head);
  if (!data) {
    panel.appendChild(h("p", { class: "adv-line muted-line" }, hint.failed ? t("The hint is not available now.") : t("Thinking…")));
    return;
  }
  if (turn.rolls === 0) {
    if (bestRoll) panel.appendChild(adviceLine("adv-roll top", t("Roll"), null, bestRoll.value, chanceNode(bestRoll)));
    return;
  }
  if (bestRoll) {
    const canApply = turn.can_keep && !game.pending && bestRoll.action !== chosen;
    const apply = canApply
      ? h("button", {
        type: "button",
        class: "btn small adv-apply",
        title: t("Hold the dice the hint keeps"),
        onclick: () => {
          held.clear();
          for (const index of keptPositions(bestRoll.action)) held.add(index);
          redraw();
        },
      }, t("Apply"))
      : null;
    const gap = stop ? gapBelow(top, worth(bestRoll)) : null;
    panel.appendChild(adviceLine(`adv-hold ${stop ? "" : "top"}`, t("Best roll:"), actionNode(variant, bestRoll.action, turn.dice, faces), bestRoll.value, [chanceNode(bestRoll), gap, apply]));
    const mine = chosen === null ? null : rolls.find((o) => o.action === chosen);
    if (chosen === null) {
      panel.appendChild(h("p", { class: "adv-line adv-mine" }, h("span", { class: "adv-label" }, t("Your choice:")), " ", t("All dice held")));
    } else if (mine) {
      panel.appendChild(adviceLine("adv-mine", t("Your choice:"), actionNode(variant, mine.action, turn.dice, faces), mine.value, [chanceNode(mine), gapBelow(top, worth(mine))]));
    }
  }
  if (bestCell) {
    panel.appendChild(adviceLine(`adv-cell ${stop ? "top" : ""}`, t("Best cell:"), actionNode(variant, bestCell.action, turn.dice, faces), bestCell.value, [chanceNode(bestCell), stop ? null : gapBelow(top, worth(bestCell))]));
    if (bestRoll) {
      const gap = worth(bestRoll) - worth(bestCell);
      const text = gap > 0.05
        ? t("Rolling again beats stopping by {points}.", { points: dec(gap) })
        : gap < -0.05
          ? t("Stopping beats rolling again by {points}.", { points: dec(-gap) })
          : t("Stopping and rolling again are worth the same.");
      panel.appendChild(h("p", { class: `adv-line adv-verdict ${gap > 0.05 ? "roll" : "stop"}` }, text));
    }
  }
}

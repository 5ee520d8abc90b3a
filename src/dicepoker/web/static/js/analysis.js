// The advisor's words on the page: actions as text (holds by the faces they keep), and the
// analysis of a game (GET /api/{games|records}/{id}/analysis) as a panel of per-player figures and
// worst moves, for the end screen of the table and the replay viewer.
import { clear, dec, h, minus, num, rowLabel, shownName, t } from "./common.js";
import { faceLabel, miniDie } from "./dice.js";

/** A decision that loses more than this many points of expected final score is a mistake
 * (the server counts `mistakes` the same way). */
export const MISTAKE = 1.0;

/** @param {string | null | undefined} action */
function words(action) {
  return String(action || "").trim().split(/\s+/);
}

/** @param {string} action */
export function isCellAction(action) {
  return ["score", "strike", "zero"].includes(words(action)[0]);
}

/**
 * Whether an action keeps dice: "keep i j" (or "hold i j", the older word).
 * @param {string} action
 */
function isKeep(action) {
  return ["keep", "hold"].includes(words(action)[0]);
}

/**
 * The positions a "keep i j" action keeps ([] for "roll": every die rolls again).
 * @param {string} action
 */
export function keptPositions(action) {
  const parts = words(action);
  return isKeep(action) ? parts.slice(1).map(Number).filter((p) => Number.isInteger(p) && p >= 0) : [];
}

/**
 * The faces a hold keeps, lowest first.
 * @param {string} action
 * @param {number[]} dice
 */
function keptFaces(action, dice) {
  return keptPositions(action).filter((p) => p < dice.length).map((p) => dice[p]).sort((a, b) => a - b);
}

/**
 * Whether `dice` is a throw: faces 1..n, n the number of face labels when they are known.
 * @param {number[] | null | undefined} dice
 * @param {string[] | null | undefined} faceLabels
 * @returns {dice is number[]}
 */
function hasDice(dice, faceLabels) {
  const faces = faceLabels && faceLabels.length ? faceLabels.length : Infinity;
  return Array.isArray(dice) && dice.length > 0 && dice.every((d) => Number.isInteger(d) && d >= 1 && d <= faces);
}

/**
 * An action in the player's words: "score Pair", "strike Sum", "keep 5 5" (the faces kept, when
 * the dice are known; else "keep dice 1, 3"), "roll all" (a second or third roll of every die).
 * @param {string} variant
 * @param {string} action
 * @param {number[] | null | undefined} dice
 * @param {string[] | null | undefined} faceLabels
 */
export function actionText(variant, action, dice, faceLabels) {
  const [verb, row] = words(action);
  if (verb === "score") return t("score {row}", { row: rowLabel(variant, row) });
  if (verb === "strike") return t("strike {row}", { row: rowLabel(variant, row) });
  if (verb === "zero") return t("zero in {row}", { row: rowLabel(variant, row) });
  if (verb === "roll") return t("roll all");
  if (isKeep(action)) {
    const kept = keptPositions(action);
    if (hasDice(dice, faceLabels)) return t("keep {dice}", { dice: keptFaces(action, dice).map((face) => faceLabel(face, faceLabels)).join(" ") });
    return t("keep dice {list}", { list: kept.map((p) => num(p + 1)).join(", ") });
  }
  return String(action || "");
}

/**
 * The same as `actionText`, with the kept faces drawn as small dice (read out as text).
 * @param {string} variant
 * @param {string} action
 * @param {number[] | null | undefined} dice
 * @param {string[] | null | undefined} faceLabels
 */
export function actionNode(variant, action, dice, faceLabels) {
  if (!isKeep(action) || !hasDice(dice, faceLabels)) return h("span", { class: "act" }, actionText(variant, action, dice, faceLabels));
  const [before, after] = t("keep {dice}").split("{dice}");
  const faces = keptFaces(action, dice);
  return h("span", { class: "act act-hold" },
    before || "",
    h("span", { class: "kept", "aria-hidden": "true" }, faces.map((face) => miniDie(face, faceLabels))),
    h("span", { class: "sr-only" }, faces.map((face) => faceLabel(face, faceLabels)).join(" ")),
    after || "");
}

/**
 * The decisions of an analysis with their place in the turn: `k` (0: after the first roll), the
 * `dice` they were made on (from the record, when given) and `own`, the number of the turn among
 * the turns of the player who made it (the record's turn numbers count every player's turns).
 * @param {Analysis} analysis
 * @param {GameRecord | null | undefined} record
 * @returns {PlacedDecision[]}
 */
export function placeDecisions(analysis, record) {
  /** @type {Map<number, number>} */
  const seen = new Map();
  /** @type {Map<number, Set<number>>} the turns of each seat */
  const turnsOf = new Map();
  for (const decision of analysis.decisions || []) {
    const turns = turnsOf.get(decision.seat) || new Set();
    turns.add(decision.turn);
    turnsOf.set(decision.seat, turns);
  }
  /** @type {Map<number, number[]>} */
  const ordered = new Map([...turnsOf].map(([seat, turns]) => [seat, [...turns].sort((a, b) => a - b)]));
  return (analysis.decisions || []).map((decision) => {
    const k = seen.get(decision.turn) || 0;
    seen.set(decision.turn, k + 1);
    const entry = record && Array.isArray(record.turns) ? record.turns[decision.turn - 1] : null;
    const roll = entry && Array.isArray(entry.rolls) ? entry.rolls[k] : null;
    const own = (ordered.get(decision.seat) || []).indexOf(decision.turn) + 1;
    return { ...decision, k, own, dice: roll && Array.isArray(roll.dice) ? roll.dice : null };
  });
}

/**
 * @param {PlacedDecision[]} placed
 * @param {Decision} decision
 * @returns {PlacedDecision}
 */
function place(placed, decision) {
  return placed.find((d) => d.turn === decision.turn && d.seat === decision.seat && d.action === decision.action && d.value === decision.value) || { ...decision, k: null, own: 0, dice: null };
}

/** @param {string} method */
function methodNote(method) {
  return method === "solver" ? t("Exact values from the solver.") : t("Values estimated by the expert bot.");
}

/**
 * How the analysis is drawn: the variant and face labels of its game, its record (to place the
 * decisions), where a worst move links to and what a click on it does.
 * @typedef {object} AnalysisOptions
 * @property {string} [variant]
 * @property {string[] | null} [faceLabels]
 * @property {GameRecord | null} [record]
 * @property {(turnIndex: number, roll: number) => string | null} [href]
 * @property {(turnIndex: number, roll: number) => void} [onJump]
 */

/**
 * Fill `box` with the analysis: per player the decisions, mistakes, expected points lost and the
 * worst moves; a worst move links to the position where it was made.
 * @param {HTMLElement} box
 * @param {Analysis} analysis
 * @param {AnalysisOptions} [opts]
 */
export function renderAnalysis(box, analysis, opts = {}) {
  const variant = opts.variant || analysis.variant;
  const placed = placeDecisions(analysis, opts.record);
  clear(box);
  box.appendChild(h("h2", { id: "analysis-title" }, t("Analysis")));
  box.appendChild(h("p", { class: "an-note" }, `${methodNote(analysis.method)} ${t("A mistake loses more than one point of expected final score.")}`));
  const grid = h("div", { class: "an-players" });
  for (const player of analysis.players || []) {
    const worst = (player.worst || []).map((d) => place(placed, d));
    /** @type {(cls: string, label: string, value: string, extra?: Child) => HTMLElement} */
    const stat = (cls, label, value, extra) => h("div", { class: `an-stat ${cls}` }, h("dt", null, label), h("dd", null, value, extra || null));
    const name = shownName(player.name);
    const card = h("article", { class: "an-player", dataset: { seat: String(player.seat) }, "aria-label": `${t("Analysis")}: ${name}` },
      h("h3", { class: "an-name" }, name),
      h("dl", { class: "an-stats" },
        stat("an-decisions", t("Decisions"), num(player.decisions)),
        stat(`an-mistakes ${player.mistakes ? "bad" : ""}`, t("Mistakes"), num(player.mistakes)),
        stat(`an-loss ${player.expected_loss > 0 ? "bad" : ""}`, t("Expected points lost"), dec(player.expected_loss, 1)),
        stat("an-mean", t("Per decision"), dec(player.mean_loss, 2))));
    if (worst.length) {
      card.appendChild(h("h4", null, t("Worst moves")));
      const body = h("tbody");
      for (const d of worst) {
        const roll = d.k === null ? 0 : d.k + 1;
        const own = num(d.own || d.turn);
        const shown = roll ? t("Turn {n}, roll {roll}", { n: own, roll: num(roll) }) : t("Turn {n}", { n: own });
        const turnLabel = roll ? t("{name}: turn {n}, roll {roll}", { name, n: own, roll: num(roll) }) : t("{name}: turn {n}", { name, n: own });
        const href = opts.href ? opts.href(d.turn - 1, roll) : null;
        const jump = opts.onJump;
        const turnCell = href
          ? h("a", { href, "aria-label": turnLabel, title: turnLabel, onclick: jump ? (/** @type {Event} */ click) => { click.preventDefault(); jump(d.turn - 1, roll); } : null }, shown)
          : h("span", { "aria-label": turnLabel }, shown);
        body.appendChild(
          h("tr", { class: d.loss > MISTAKE ? "mistake" : "" },
            h("th", { scope: "row" }, turnCell),
            h("td", { class: "an-played" }, actionNode(variant, d.action, d.dice, opts.faceLabels)),
            h("td", { class: "an-best" }, actionNode(variant, d.best, d.dice, opts.faceLabels)),
            h("td", { class: "an-lost" }, minus(d.loss, 1))),
        );
      }
      card.appendChild(
        h("div", { class: "an-table-wrap" },
          h("table", { class: "an-worst" },
            h("caption", { class: "sr-only" }, `${t("Worst moves")}: ${name}`),
            h("thead", null, h("tr", null,
              h("th", { scope: "col" }, t("Turn")),
              h("th", { scope: "col" }, t("Played")),
              h("th", { scope: "col" }, t("Best")),
              h("th", { scope: "col" }, t("Lost")))),
            body)),
      );
    } else {
      card.appendChild(h("p", { class: "an-clean" }, t("No points lost.")));
    }
    grid.appendChild(card);
  }
  box.appendChild(grid);
}

/**
 * A panel that says the analysis is on its way, or could not be made.
 * @param {HTMLElement} box
 * @param {string} text
 */
export function renderAnalysisMessage(box, text) {
  clear(box);
  box.appendChild(h("h2", { id: "analysis-title" }, t("Analysis")));
  box.appendChild(h("p", { class: "an-note" }, text));
}

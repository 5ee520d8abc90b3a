// The advisor's words on the page: actions as text (holds by the faces they keep), and the
// analysis of a game (GET /api/{games|records}/{id}/analysis) as a panel of per-player figures and
// worst moves, for the end screen of the table and the replay viewer.
import { clear, dec, h, minus, num, rowLabel, t } from "./common.js";
import { faceLabel, miniDie } from "./dice.js";

/** A decision that loses more than this many points of expected final score is a mistake
 * (the server counts `mistakes` the same way). */
export const MISTAKE = 1.0;

function words(action) {
  return String(action || "").trim().split(/\s+/);
}

export function isCellAction(action) {
  return ["score", "strike", "zero"].includes(words(action)[0]);
}

/** The positions a "hold i j" action keeps ([] for "roll": every die rolls again). */
export function keptPositions(action) {
  const parts = words(action);
  return parts[0] === "hold" ? parts.slice(1).map(Number).filter((p) => p >= 0 && p < 5) : [];
}

/** The faces a hold keeps, lowest first. */
function keptFaces(action, dice) {
  return keptPositions(action).map((p) => dice[p]).sort((a, b) => a - b);
}

function hasDice(dice) {
  return Array.isArray(dice) && dice.length === 5 && dice.every((d) => d >= 1 && d <= 6);
}

/**
 * An action in the player's words: "score Pair", "strike Sum", "keep 5 5" (the faces kept, when
 * the dice are known; else "keep dice 1, 3"), "roll all" (a second or third roll of all five).
 */
export function actionText(preset, action, dice, faceLabels) {
  const [verb, row] = words(action);
  if (verb === "score") return t("score {row}", { row: rowLabel(preset, row) });
  if (verb === "strike") return t("strike {row}", { row: rowLabel(preset, row) });
  if (verb === "zero") return t("zero in {row}", { row: rowLabel(preset, row) });
  if (verb === "roll") return t("roll all");
  if (verb === "hold") {
    const kept = keptPositions(action);
    if (hasDice(dice)) return t("keep {dice}", { dice: keptFaces(action, dice).map((face) => faceLabel(face, faceLabels)).join(" ") });
    return t("keep dice {list}", { list: kept.map((p) => num(p + 1)).join(", ") });
  }
  return String(action || "");
}

/** The same as `actionText`, with the kept faces drawn as small dice (read out as text). */
export function actionNode(preset, action, dice, faceLabels) {
  if (words(action)[0] !== "hold" || !hasDice(dice)) return h("span", { class: "act" }, actionText(preset, action, dice, faceLabels));
  const [before, after] = t("keep {dice}").split("{dice}");
  const faces = keptFaces(action, dice);
  return h("span", { class: "act act-hold" },
    before || "",
    h("span", { class: "kept", "aria-hidden": "true" }, faces.map((face) => miniDie(face, faceLabels))),
    h("span", { class: "sr-only" }, faces.map((face) => faceLabel(face, faceLabels)).join(" ")),
    after || "");
}

/**
 * The decisions of an analysis with their place in the turn: `k` (0: after the first roll) and
 * the `dice` they were made on (from the record, when given).
 */
export function placeDecisions(analysis, record) {
  const seen = new Map();
  return (analysis.decisions || []).map((decision) => {
    const k = seen.get(decision.turn) || 0;
    seen.set(decision.turn, k + 1);
    const entry = record && Array.isArray(record.turns) ? record.turns[decision.turn - 1] : null;
    const roll = entry && Array.isArray(entry.rolls) ? entry.rolls[k] : null;
    return { ...decision, k, dice: roll && Array.isArray(roll.dice) ? roll.dice : null };
  });
}

function place(placed, decision) {
  return placed.find((d) => d.turn === decision.turn && d.seat === decision.seat && d.action === decision.action && d.value === decision.value) || { ...decision, k: null, dice: null };
}

function methodNote(method) {
  return method === "solver" ? t("Exact values from the solver.") : t("Values estimated by the expert bot.");
}

/**
 * Fill `box` with the analysis: per player the decisions, mistakes, expected points lost and the
 * worst moves. opts: {preset, faceLabels, record, href(turnIndex, roll) -> url | null,
 * onJump(turnIndex, roll)}; a worst move links to the position where it was made.
 */
export function renderAnalysis(box, analysis, opts = {}) {
  const preset = opts.preset || analysis.variant;
  const placed = placeDecisions(analysis, opts.record);
  clear(box);
  box.appendChild(h("h2", { id: "analysis-title" }, t("Analysis")));
  box.appendChild(h("p", { class: "an-note" }, `${methodNote(analysis.method)} ${t("A mistake loses more than one point of expected final score.")}`));
  const grid = h("div", { class: "an-players" });
  for (const player of analysis.players || []) {
    const worst = (player.worst || []).map((d) => place(placed, d));
    const stat = (cls, label, value, extra) => h("div", { class: `an-stat ${cls}` }, h("dt", null, label), h("dd", null, value, extra || null));
    const card = h("article", { class: "an-player", dataset: { seat: String(player.seat) }, "aria-label": `${t("Analysis")}: ${player.name}` },
      h("h3", { class: "an-name" }, player.name),
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
        const turnLabel = t("Turn {n}", { n: num(d.turn) });
        const href = opts.href ? opts.href(d.turn - 1, roll) : null;
        const turnCell = href
          ? h("a", { href, "aria-label": turnLabel, title: turnLabel, onclick: opts.onJump ? (event) => { event.preventDefault(); opts.onJump(d.turn - 1, roll); } : null }, num(d.turn))
          : h("span", { "aria-label": turnLabel }, num(d.turn));
        body.appendChild(
          h("tr", { class: d.loss > MISTAKE ? "mistake" : "" },
            h("th", { scope: "row" }, turnCell),
            h("td", { class: "an-played" }, actionNode(preset, d.action, d.dice, opts.faceLabels)),
            h("td", { class: "an-best" }, actionNode(preset, d.best, d.dice, opts.faceLabels)),
            h("td", { class: "an-lost" }, minus(d.loss, 1))),
        );
      }
      card.appendChild(
        h("div", { class: "an-table-wrap" },
          h("table", { class: "an-worst" },
            h("caption", { class: "sr-only" }, `${t("Worst moves")}: ${player.name}`),
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

/** A panel that says the analysis is on its way, or could not be made. */
export function renderAnalysisMessage(box, text) {
  clear(box);
  box.appendChild(h("h2", { id: "analysis-title" }, t("Analysis")));
  box.appendChild(h("p", { class: "an-note" }, text));
}

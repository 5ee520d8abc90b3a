// The advisor's words on the page: actions as text (holds by the faces they keep), and the
// analysis of a game (GET /api/{games|records}/{id}/analysis) as a panel, for the end screen of
// the table and the replay viewer: the curve of the chances of winning (curve.js), and per player
// the verdict, the figures (decisions, mistakes, points lost, luck, chance lost), the key moments
// and the worst moves, each linking to the position where it was made.
/** @import { Analysis, Decision, RulesView, Swing, Record as GameRecord } from "../../typings/protocol" */
import { LANG, clear, dec, h, minus, num, rowLabel, shownName, t } from "./common.js";
import { curveSection, signedPct } from "./curve.js";
import { faceLabel, miniDie } from "./dice.js";
import { roundsOf, turnLabel } from "./turns.js";

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
 * A decision with its place in the turn (worked out here, not sent): `k` (0: after the first
 * roll; null: not placed), `own`, the turn's number among its player's turns (0: not known),
 * and the `dice` it was made on.
 * @typedef {Decision & { k: number | null, own: number, dice: number[] | null }} PlacedDecision
 */

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

/**
 * The rolls of its turn before a decision (the replay viewer's `roll`): the analysis says it
 * (`roll`); an older one is placed by the record (0: not known).
 * @param {PlacedDecision} decision
 */
export function rollOf(decision) {
  if (Number.isInteger(decision.roll)) return Number(decision.roll);
  return decision.k === null ? 0 : decision.k + 1;
}

/**
 * A signed number of points with a real minus sign, one decimal: +12.3, −4.0, 0.0.
 * @param {number} value
 */
export function signedDec(value) {
  const text = dec(Math.abs(value), 1);
  if (!/[1-9]/.test(text)) return text;
  return `${value > 0 ? "+" : "\u2212"}${text}`;
}

/**
 * Who played each turn of the record (1-based) and which of their own turns it was, from the
 * analysis's rolls and decisions.
 * @param {Analysis} analysis
 * @returns {Map<number, { seat: number, own: number }>}
 */
export function turnOwners(analysis) {
  /** @type {Map<number, number>} */
  const seatOf = new Map();
  for (const item of [...(analysis.rolls || []), ...(analysis.decisions || [])]) {
    if (Number.isInteger(item.turn) && !seatOf.has(item.turn)) seatOf.set(item.turn, item.seat);
  }
  /** @type {Map<number, number>} */
  const counts = new Map();
  /** @type {Map<number, { seat: number, own: number }>} */
  const owners = new Map();
  for (const turn of [...seatOf.keys()].sort((a, b) => a - b)) {
    const seat = /** @type {number} */ (seatOf.get(turn));
    const own = (counts.get(seat) || 0) + 1;
    counts.set(seat, own);
    owners.set(turn, { seat, own });
  }
  return owners;
}

/**
 * The round of the game a decision or a roll was made in, and the game's rounds: the server
 * says them (`round`, `rounds`: dicepoker.view.turn_count); an older analysis, or an answer
 * that leaves them out, is placed by its player's turns among the analysis's.
 * @param {{ turn: number, seat: number, round?: number, rounds?: number, own?: number }} item
 * @param {Map<number, { seat: number, own: number }>} owners
 * @param {number | null} rounds the game's rounds from its rules, where the page knows them
 * @returns {{ round: number, rounds: number | null }}
 */
export function roundOf(item, owners, rounds) {
  const round = item.round || item.own || owners.get(item.turn)?.own || item.turn;
  return { round, rounds: item.rounds || rounds };
}

/**
 * A verdict on a player's play in plain words (by the mean loss per decision; docs/analysis.md).
 * @param {string | undefined} code
 */
export function verdictText(code) {
  switch (code) {
    case "perfect": return t("Perfect play: every decision was the expert's.");
    case "excellent": return t("Excellent play: close to the expert's.");
    case "strong": return t("Strong play: a few small slips.");
    case "decent": return t("Decent play: some points lost along the way.");
    case "shaky": return t("Shaky play: several costly decisions.");
    case "weak": return t("Weak play: many points lost to better choices.");
    default: return "";
  }
}

/**
 * What a decision was against the expert's choice: "Played: keep 5 5 · Expert: keep 5 5 5 ·
 * −1.9 points · −2% chance of winning" (or the expert's choice itself, when it lost nothing).
 * @param {string} variant
 * @param {Decision} decision
 * @param {number[] | null | undefined} dice
 * @param {string[] | null | undefined} faceLabels
 */
export function decisionNode(variant, decision, dice, faceLabels) {
  const parts = [h("span", { class: "dn-played" }, `${t("Played")}: `, actionNode(variant, decision.action, dice, faceLabels))];
  if (decision.loss > 0) {
    parts.push(h("span", { class: "dn-best" }, `${t("Expert")}: `, actionNode(variant, decision.best, dice, faceLabels)));
    parts.push(h("span", { class: "dn-loss" }, t("{points} points", { points: minus(decision.loss, 1) })));
    const lost = decision.win_lost;
    if (typeof lost === "number" && Number.isFinite(lost) && /[1-9]/.test(signedPct(-lost))) {
      parts.push(h("span", { class: "dn-win" }, t("{pct} chance of winning", { pct: signedPct(-lost) })));
    }
  } else {
    parts.push(h("span", { class: "dn-best dn-same" }, t("the expert's choice")));
  }
  /** @type {HTMLElement[]} */
  const joined = [];
  parts.forEach((part, i) => {
    if (i) joined.push(h("span", { class: "dn-sep", "aria-hidden": "true" }, " · "));
    joined.push(part);
  });
  return h("span", { class: "decision-line" }, joined);
}

/**
 * A link to a position of the game (the replay viewer's turn and roll) where the options say
 * where positions are; else the text alone (labelled).
 * @param {AnalysisOptions} opts
 * @param {number} turn
 * @param {number} roll
 * @param {string} text
 * @param {string} label
 * @param {string | null} [fallback] the address when the options give none (the API's `link`)
 */
function positionLink(opts, turn, roll, text, label, fallback) {
  const href = opts.href ? opts.href(turn, roll) : fallback || null;
  const jump = opts.onJump;
  return href
    ? h("a", { href, "aria-label": label, title: label, onclick: jump ? (/** @type {Event} */ click) => { click.preventDefault(); jump(turn, roll); } : null }, text)
    : h("span", { "aria-label": label }, text);
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
 * @property {RulesView | null} [rules] the game's rules (the turn count's rounds)
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
  const owners = turnOwners(analysis);
  const rounds = opts.rules ? roundsOf(opts.rules) : null;
  /** @type {string[]} the players' names by seat */
  const names = [];
  for (const player of analysis.players || []) names[player.seat] = shownName(player.name);
  clear(box);
  box.appendChild(h("h2", { id: "analysis-title" }, t("Analysis")));
  const luckKnown = (analysis.players || []).some((p) => typeof p.luck === "number");
  box.appendChild(h("p", { class: "an-note" },
    `${methodNote(analysis.method)} ${t("A mistake loses more than one point of expected final score.")}`,
    luckKnown ? ` ${t("Luck: how far the dice moved each player's expected final score (+ helped, − hurt).")}` : null));
  const curve = curveSection(analysis, {
    names,
    describe: (swing) => describeSwing(analysis, swing, names, owners, rounds),
    link: (turn, roll, text, label) => positionLink(opts, turn, roll, text, label),
  });
  if (curve) box.appendChild(curve);
  const grid = h("div", { class: "an-players" });
  for (const player of analysis.players || []) {
    const allWorst = (player.worst || []).map((d) => place(placed, d));
    /** @type {(cls: string, label: string, value: string, extra?: Child) => HTMLElement} */
    const stat = (cls, label, value, extra) => h("div", { class: `an-stat ${cls}` }, h("dt", null, label), h("dd", null, value, extra || null));
    const name = shownName(player.name);
    const verdict = verdictText(player.verdict);
    const card = h("article", { class: "an-player", dataset: { seat: String(player.seat) }, "aria-label": `${t("Analysis")}: ${name}` },
      h("h3", { class: "an-name" }, name),
      verdict ? h("p", { class: `an-verdict verdict-${player.verdict}` }, verdict) : null,
      h("dl", { class: "an-stats" },
        stat("an-decisions", t("Decisions"), num(player.decisions)),
        stat(`an-mistakes ${player.mistakes ? "bad" : ""}`, t("Mistakes"), num(player.mistakes)),
        stat(`an-loss ${player.expected_loss > 0 ? "bad" : ""}`, t("Expected points lost"), dec(player.expected_loss, 1)),
        stat("an-mean", t("Per decision"), dec(player.mean_loss, 2)),
        typeof player.luck === "number" ? stat(`an-luck ${luckClass(player.luck, 0.05)}`, t("Luck in points"), signedDec(player.luck)) : null,
        typeof player.luck_win === "number" ? stat(`an-luck-win ${luckClass(player.luck_win, 0.0005)}`, t("Luck in chance of winning"), signedPct(player.luck_win)) : null,
        typeof player.win_lost === "number" ? stat(`an-win-lost ${player.win_lost >= 0.005 ? "bad" : ""}`, t("Chance of winning lost by decisions"), signedPct(-player.win_lost)) : null));
    // (A moment that lost less than the tenth of a point the page shows is no moment.)
    const moments = (player.key_moments || []).filter((d) => d.loss >= 0.05).slice(0, 3).map((d) => place(placed, d));
    if (moments.length) {
      card.appendChild(h("h4", null, t("Key moments")));
      card.appendChild(
        h("ol", { class: "an-moments" },
          moments.map((d) => {
            const roll = rollOf(d);
            const shown = turnLabel({ ...roundOf(d, owners, rounds), name, roll });
            return h("li", { class: `an-moment ${d.loss > MISTAKE ? "mistake" : ""}` },
              positionLink(opts, d.turn - 1, roll, shown, shown, d.link),
              " ",
              decisionNode(variant, d, d.dice, opts.faceLabels));
          })));
    }
    // The worst moves the key moments do not already show.
    const worst = allWorst.filter((d) => !moments.some((m) => m.turn === d.turn && m.roll === d.roll && m.seat === d.seat && m.action === d.action));
    const worstTitle = moments.length ? t("Other costly moves") : t("Worst moves");
    if (worst.length) {
      card.appendChild(h("h4", null, worstTitle));
      const body = h("tbody");
      for (const d of worst) {
        const roll = rollOf(d);
        const count = roundOf(d, owners, rounds);
        // The card names its player: a link is named by its visible words (WCAG 2.5.3).
        const shown = turnLabel({ ...count, roll });
        const label = shown;
        body.appendChild(
          h("tr", { class: d.loss > MISTAKE ? "mistake" : "" },
            h("th", { scope: "row" }, positionLink(opts, d.turn - 1, roll, shown, label, d.link)),
            h("td", { class: "an-played" }, actionNode(variant, d.action, d.dice, opts.faceLabels)),
            h("td", { class: "an-best" }, actionNode(variant, d.best, d.dice, opts.faceLabels)),
            h("td", { class: "an-lost" }, minus(d.loss, 1))),
        );
      }
      card.appendChild(
        h("div", { class: "an-table-wrap" },
          h("table", { class: "an-worst" },
            h("caption", { class: "sr-only" }, `${worstTitle}: ${name}`),
            h("thead", null, h("tr", null,
              h("th", { scope: "col" }, t("Turn")),
              h("th", { scope: "col" }, t("Played")),
              h("th", { scope: "col" }, t("Best")),
              h("th", { scope: "col" }, t("Lost")))),
            body)),
      );
    } else if (!moments.length) {
      card.appendChild(h("p", { class: "an-clean" }, t("No points lost.")));
    }
    grid.appendChild(card);
  }
  box.appendChild(grid);
}

/**
 * The class of a luck figure: good (the dice helped), bad (they hurt) or none (about even).
 * @param {number} value
 * @param {number} even below this either way it is about even
 */
function luckClass(value, even) {
  return value >= even ? "good" : value <= -even ? "bad" : "";
}

/**
 * A swing of the curve in words (who moved how much, after whose roll or decision) and the
 * position it links to: the dice that landed, or the decision made.
 * @param {Analysis} analysis
 * @param {Swing} swing
 * @param {string[]} names
 * @param {Map<number, { seat: number, own: number }>} owners
 * @param {number | null} rounds the game's rounds, where the page knows its rules
 */
function describeSwing(analysis, swing, names, owners, rounds) {
  const decided = swing.cause === "decision";
  // The record's turn (1-based) it happened in: the one in progress after a roll, the one just
  // ended after a decision (a cell move ends its turn).
  const recordTurn = decided || swing.roll === 0 ? swing.turn : swing.turn + 1;
  const owner = owners.get(recordTurn);
  const mover = owner ? names[owner.seat] || "" : "";
  const values = { name: names[swing.seat] || "", change: signedPct(swing.change), mover };
  const own = owner && owner.seat === swing.seat;
  let text;
  if (decided) {
    text = own ? t("{name} {change} after their own decision", values) : mover ? t("{name} {change} after a decision by {mover}", values) : t("{name} {change} after a decision", values);
  } else {
    text = own ? t("{name} {change} after their own roll", values) : mover ? t("{name} {change} after a roll by {mover}", values) : t("{name} {change} after a roll", values);
  }
  let turn = swing.turn;
  let roll = swing.roll;
  /** @type {{ round: number, rounds: number | null }} */
  let count = { round: owner ? owner.own : recordTurn, rounds };
  if (decided) {
    const made = (analysis.decisions || []).filter((d) => d.turn === recordTurn && Number.isInteger(d.roll));
    const last = made[made.length - 1];
    if (last) {
      turn = last.turn - 1;
      roll = Number(last.roll);
      count = roundOf(last, owners, rounds);
    }
  } else {
    const thrown = (analysis.rolls || []).find((r) => r.turn === recordTurn && r.roll === roll);
    if (thrown) count = roundOf(thrown, owners, rounds);
  }
  const where = turnLabel({ ...count, roll });
  const label = turnLabel({ ...count, name: mover || values.name, roll });
  return { text, where, turn, roll, label };
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

/**
 * When today's daily challenges are over (the next midnight, UTC), in the visitor's own time.
 * @param {Date} [now]
 */
export function dayOverWords(now = new Date()) {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const format = new Intl.DateTimeFormat(LANG === "pt" ? "pt-BR" : LANG, { weekday: "long", hour: "2-digit", minute: "2-digit" });
  return format.format(end);
}

/**
 * Why the analysis of a game is closed (403 `competitive`, docs/fair-play.md): a game played
 * without the expert's help opens it when it is over, a daily challenge when its day is.
 * @param {boolean} daily whether the game is known to be a finished daily challenge
 */
export function closedAnalysisText(daily) {
  return daily
    ? t("The analysis of a daily challenge opens when its day is over: {when}.", { when: dayOverWords() })
    : t("The analysis opens when the game is over (a daily challenge's when its day is over: {when}).", { when: dayOverWords() });
}

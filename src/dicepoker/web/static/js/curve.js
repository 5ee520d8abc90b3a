// Who was winning, over the whole game: the analysis's `curve` (every seat's chance of winning at
// every position, in the replay viewer's coordinates; docs/analysis.md) as an SVG line per
// player, told apart by colour, dash and end marker (the legend shows all three); the biggest
// swings numbered on it and listed below it, each linking to its position; a visually hidden
// table, turn by turn, for screen readers. The plot is drawn in the pixels of its box (its view
// box is as wide as the box), so its words stay legible from a 320 px phone to a desktop, and
// drawn again when the box's width changes.
/** @import { Analysis, CurvePoint, Swing } from "../../typings/protocol" */
import { LANG, h, num, t } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
/** The dash of each seat's line (again from the first after the last). */
const DASHES = ["", "9 5", "2 4", "12 4 3 4"];
/** The marker at the end of each seat's line. */
const SHAPES = ["circle", "square", "triangle", "diamond"];
/** The seats told apart by colour (CSS .curve-seat-N). */
const COLOURS = 8;

const locale = LANG === "pt" ? "pt-BR" : LANG;
const wholeFormat = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 });
const fineFormat = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 });

/**
 * A chance as a whole percentage: 62%, 62 %.
 * @param {number} fraction
 */
export function pct(fraction) {
  return wholeFormat.format(fraction);
}

/**
 * A change of chance, signed with a real minus, one decimal at most: +8%, −0.4%, 0%.
 * @param {number} fraction
 */
export function signedPct(fraction) {
  const text = fineFormat.format(Math.abs(fraction));
  if (!/[1-9]/.test(text)) return text;
  return `${fraction > 0 ? "+" : "\u2212"}${text}`;
}

/** @param {number} seat */
function dashOf(seat) {
  return DASHES[seat % DASHES.length];
}

/** @param {number} seat */
function shapeOf(seat) {
  return SHAPES[(seat + Math.floor(seat / SHAPES.length)) % SHAPES.length];
}

/**
 * An SVG element.
 * @param {string} tag
 * @param {Record<string, string | number | null | undefined>} [attrs]
 * @param {(Node | string | null)[]} children
 */
function s(tag, attrs, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) element.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child !== null) element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * A seat's marker centred on (x, y).
 * @param {number} seat
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {string} cls
 */
function marker(seat, x, y, r, cls) {
  const shape = shapeOf(seat);
  const at = (/** @type {number} */ dx, /** @type {number} */ dy) => `${round(x + dx)} ${round(y + dy)}`;
  const attrs = { class: `${cls} curve-seat-${seat % COLOURS}` };
  if (shape === "circle") return s("circle", { ...attrs, cx: round(x), cy: round(y), r });
  if (shape === "square") return s("rect", { ...attrs, x: round(x - r * 0.9), y: round(y - r * 0.9), width: round(r * 1.8), height: round(r * 1.8) });
  if (shape === "triangle") return s("path", { ...attrs, d: `M${at(0, -r * 1.2)}L${at(r * 1.15, r * 0.85)}L${at(-r * 1.15, r * 0.85)}Z` });
  return s("path", { ...attrs, d: `M${at(0, -r * 1.3)}L${at(r * 1.3, 0)}L${at(0, r * 1.3)}L${at(-r * 1.3, 0)}Z` });
}

/** @param {number} value */
function round(value) {
  return Math.round(value * 10) / 10;
}

/**
 * Whether `point` has a chance for each of `players` seats.
 * @param {unknown} point
 * @param {number} players
 * @returns {point is CurvePoint}
 */
function isPoint(point, players) {
  const p = /** @type {CurvePoint} */ (point);
  return !!p && Number.isInteger(p.turn) && Number.isInteger(p.roll) && Array.isArray(p.chances) && p.chances.length === players
    && p.chances.every((c) => typeof c === "number" && Number.isFinite(c));
}

/**
 * The points of an analysis's curve that can be drawn (every seat's chance given), in order; []
 * when there are none or a game alone.
 * @param {Analysis} analysis
 * @returns {CurvePoint[]}
 */
export function curvePoints(analysis) {
  const curve = Array.isArray(analysis.curve) ? analysis.curve : [];
  const players = curve.length && Array.isArray(curve[0].chances) ? curve[0].chances.length : 0;
  if (players < 2) return [];
  return curve.filter((point) => isPoint(point, players));
}

/**
 * Where a position goes across: the turns of one player played (turn `k` of every player spans
 * k - 1 to k), each roll a step further into its turn.
 * @param {number} players
 * @param {number} steps rolls a turn can have, plus one
 */
function across(players, steps) {
  return (/** @type {{ turn: number, roll: number }} */ p) => (p.turn + Math.min(Math.max(p.roll, 0), steps - 1) / steps) / players;
}

/**
 * The plot's geometry for `points` in a box `width` wide: its size, its scales and its ticks.
 * @param {CurvePoint[]} points
 * @param {number} rollsPerTurn
 * @param {number} width
 */
export function curveLayout(points, rollsPerTurn, width) {
  const players = points[0].chances.length;
  const steps = Math.max(rollsPerTurn, ...points.map((p) => p.roll)) + 1;
  const xOf = across(players, steps);
  const turns = Math.max(1, Math.ceil(xOf(points[points.length - 1]) - 1e-9));
  const height = Math.round(Math.min(260, Math.max(200, width * 0.3)));
  const left = 44;
  const right = width - 14;
  const top = 12;
  const bottom = height - 28;
  const sx = (/** @type {number} */ x) => left + (x / turns) * (right - left);
  const sy = (/** @type {number} */ chance) => bottom - Math.min(1, Math.max(0, chance)) * (bottom - top);
  const every = [1, 2, 5, 10, 20, 50, 100].find((step) => ((right - left) / turns) * step >= 26) || 100;
  const xTicks = [];
  for (let k = 1; k <= turns; k += 1) if ((k - 1) % every === 0) xTicks.push(k);
  return { players, steps, turns, width, height, left, right, top, bottom, xOf, sx, sy, xTicks, even: 1 / players };
}

/**
 * The chances at the start of each player's turn `k` (the first position at or after it), and
 * at the end.
 * @param {CurvePoint[]} points
 * @param {ReturnType<typeof curveLayout>} layout
 */
function turnByTurn(points, layout) {
  /** @type {{ turn: number | null, chances: number[] }[]} */
  const rows = [];
  for (let k = 1; k <= layout.turns; k += 1) {
    const start = points.find((p) => p.turn >= (k - 1) * layout.players);
    if (start) rows.push({ turn: k, chances: start.chances });
  }
  rows.push({ turn: null, chances: points[points.length - 1].chances });
  return rows;
}

/**
 * What a curve is drawn with: the players' names by seat, the words of each swing, and a link to
 * a position (the replay viewer's turn and roll).
 * @typedef {object} CurveOptions
 * @property {string[]} names
 * @property {(swing: Swing) => { text: string, where: string, turn: number, roll: number, label: string }} describe
 * @property {(turn: number, roll: number, text: string, label: string) => HTMLElement} link
 */

/** @type {WeakMap<Element, (turn: number, roll: number) => void>} */
const markers = new WeakMap();

/**
 * The whole game's curve: a figure with the plot, its legend and its hidden table, then the
 * biggest swings; null when the analysis has no curve (a game alone, an older server).
 * @param {Analysis} analysis
 * @param {CurveOptions} opts
 * @returns {HTMLElement | null}
 */
export function curveSection(analysis, opts) {
  const points = curvePoints(analysis);
  if (points.length < 2) return null;
  const rollsPerTurn = Number.isInteger(analysis.rolls_per_turn) ? Number(analysis.rolls_per_turn) : 3;
  const players = points[0].chances.length;
  const names = Array.from({ length: players }, (_, seat) => opts.names[seat] || t("Player {n}", { n: num(seat + 1) }));
  const swings = (Array.isArray(analysis.swings) ? analysis.swings : [])
    .filter((swing) => Number.isInteger(swing.index) && swing.index > 0 && swing.index < points.length && swing.seat >= 0 && swing.seat < players)
    .slice(0, 3);
  const described = swings.map((swing) => opts.describe(swing));
  const first = points[0].chances;
  const last = points[points.length - 1].chances;
  const summary = names.map((name, seat) => t("{name}: from {start} to {end}", { name, start: pct(first[seat]), end: pct(last[seat]) })).join("; ");
  const label = `${t("Chance of winning over the game")}: ${summary}.`;

  const plot = h("div", { class: "curve-plot" });
  const figure = h("figure", { class: "curve-figure" }, plot);
  /** @type {{ turn: number, roll: number } | null} */
  let now = null;
  /** @type {((turn: number, roll: number) => void) | null} */
  let place = null;
  let drawn = 0;
  const draw = (/** @type {number} */ width) => {
    drawn = width;
    const layout = curveLayout(points, rollsPerTurn, width);
    const drawing = drawPlot(points, layout, swings, described, label);
    plot.replaceChildren(drawing.svg);
    place = drawing.place;
    if (now) place(now.turn, now.roll);
  };
  draw(640);
  markers.set(figure, (turn, roll) => {
    now = { turn, roll };
    if (place) place(turn, roll);
  });
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(() => {
      const width = Math.round(plot.clientWidth);
      if (width > 0 && Math.abs(width - drawn) >= 24) draw(Math.max(280, width));
    }).observe(plot);
  }

  figure.appendChild(legend(names, last));
  figure.appendChild(hiddenTable(points, curveLayout(points, rollsPerTurn, 640), names));
  const section = h("section", { class: "curve-section", "aria-labelledby": "curve-title" },
    h("h3", { id: "curve-title", class: "curve-title" }, t("Chance of winning over the game")),
    figure);
  if (described.length) {
    section.appendChild(h("h4", { class: "curve-swings-title" }, t("Biggest swings")));
    section.appendChild(
      h("ol", { class: "curve-swings" },
        described.map((words, i) =>
          h("li", { class: "curve-swing-item", dataset: { seat: String(swings[i].seat), cause: swings[i].cause } },
            h("span", { class: "curve-swing-n", "aria-hidden": "true" }, num(i + 1)),
            h("span", { class: "curve-swing-body" },
              h("span", { class: "curve-swing-text" }, words.text),
              " ",
              // Named by its words alone: the swing's text before it says whose it is, and a
              // link's name holds its visible words (WCAG 2.5.3).
              opts.link(words.turn, words.roll, words.where, words.where))))));
  }
  return section;
}

/**
 * Show where the replay viewer is on the curve in `box` (a line across the plot, a dot on each
 * player's line).
 * @param {Element} box
 * @param {number} turn
 * @param {number} roll
 */
export function markCurvePosition(box, turn, roll) {
  const figure = box.querySelector(".curve-figure");
  const mark = figure ? markers.get(figure) : null;
  if (mark) mark(turn, roll);
}

/**
 * The SVG of the plot, and how to mark a position on it.
 * @param {CurvePoint[]} points
 * @param {ReturnType<typeof curveLayout>} layout
 * @param {Swing[]} swings
 * @param {{ text: string, where: string }[]} described
 * @param {string} label
 */
function drawPlot(points, layout, swings, described, label) {
  const { width, height, left, right, top, bottom, sx, sy, xOf } = layout;
  const svg = s("svg", { class: "curve", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, focusable: "false" });
  const grid = s("g", { class: "curve-grid" });
  for (let k = 1; k < layout.turns; k += 1) grid.appendChild(s("line", { class: "curve-turn", x1: round(sx(k)), x2: round(sx(k)), y1: top, y2: bottom }));
  for (const level of [0, 1]) grid.appendChild(s("line", { x1: left, x2: right, y1: round(sy(level)), y2: round(sy(level)) }));
  grid.appendChild(s("line", { class: "curve-even", x1: left, x2: right, y1: round(sy(layout.even)), y2: round(sy(layout.even)) }));
  svg.appendChild(grid);

  const labels = s("g", { class: "curve-labels", "aria-hidden": "true" });
  for (const level of [0, layout.even, 1]) {
    labels.appendChild(s("text", { x: left - 6, y: round(sy(level)), dy: "0.35em", "text-anchor": "end" }, pct(level)));
  }
  for (const k of layout.xTicks) {
    labels.appendChild(s("text", { x: round(sx(k - 0.5)), y: bottom + 18, "text-anchor": "middle" }, num(k)));
  }
  svg.appendChild(labels);

  const nowLine = s("line", { class: "curve-now", x1: left, x2: left, y1: top, y2: bottom, display: "none" });
  svg.appendChild(nowLine);

  const lines = s("g", { class: "curve-lines" });
  for (let seat = 0; seat < layout.players; seat += 1) {
    const coords = points.map((p) => `${round(sx(xOf(p)))},${round(sy(p.chances[seat]))}`).join(" ");
    lines.appendChild(s("polyline", { class: `curve-line curve-seat-${seat % COLOURS}`, "data-seat": seat, points: coords, "stroke-dasharray": dashOf(seat) || null }));
  }
  svg.appendChild(lines);

  const ends = s("g", { class: "curve-ends" });
  const end = points[points.length - 1];
  for (let seat = 0; seat < layout.players; seat += 1) ends.appendChild(marker(seat, sx(xOf(end)), sy(end.chances[seat]), 4.5, "curve-end"));
  svg.appendChild(ends);

  const dots = s("g", { class: "curve-now-dots", display: "none" });
  svg.appendChild(dots);

  const marks = s("g", { class: "curve-swing-marks" });
  swings.forEach((swing, i) => {
    const p = points[swing.index];
    const x = round(sx(xOf(p)));
    const y = round(sy(p.chances[swing.seat]));
    marks.appendChild(
      s("g", { class: `curve-swing curve-seat-${swing.seat % COLOURS}`, "data-index": swing.index, "data-seat": swing.seat },
        s("title", {}, `${num(i + 1)}. ${described[i].text} (${described[i].where})`),
        s("circle", { cx: x, cy: y, r: 9 }),
        s("text", { x, y, dy: "0.35em", "text-anchor": "middle" }, num(i + 1))));
  });
  svg.appendChild(marks);

  /** @param {number} turn @param {number} roll */
  const place = (turn, roll) => {
    const x = xOf({ turn, roll });
    const at = [...points].reverse().find((p) => xOf(p) <= x + 1e-9) || points[0];
    const px = round(sx(Math.min(x, xOf(points[points.length - 1]))));
    nowLine.setAttribute("x1", String(px));
    nowLine.setAttribute("x2", String(px));
    nowLine.removeAttribute("display");
    dots.replaceChildren(...at.chances.map((chance, seat) => marker(seat, px, sy(chance), 3.5, "curve-now-dot")));
    dots.removeAttribute("display");
  };
  return { svg, place };
}

/**
 * The legend: each player's line (colour, dash and end marker) and final chance.
 * @param {string[]} names
 * @param {number[]} last
 */
function legend(names, last) {
  return h("ul", { class: "curve-legend" },
    names.map((name, seat) => {
      const sample = s("svg", { class: "curve-key", viewBox: "0 0 36 12", "aria-hidden": "true", focusable: "false" },
        s("line", { class: `curve-line curve-seat-${seat % COLOURS}`, x1: 1, x2: 27, y1: 6, y2: 6, "stroke-dasharray": dashOf(seat) || null }),
        marker(seat, 30, 6, 3.8, "curve-end"));
      return h("li", { class: "curve-legend-item", dataset: { seat: String(seat) } },
        sample,
        h("span", { class: "curve-legend-name" }, name),
        h("span", { class: "curve-legend-end" }, pct(last[seat])));
    }));
}

/**
 * The curve as a table for screen readers: each player's chance at the start of each turn.
 * @param {CurvePoint[]} points
 * @param {ReturnType<typeof curveLayout>} layout
 * @param {string[]} names
 */
function hiddenTable(points, layout, names) {
  // (In a box of its own: a table grows to its content whatever its width, off the page.)
  return h("div", { class: "sr-only" }, h("table", { class: "curve-table" },
    h("caption", null, t("Chance of winning at the start of each turn")),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("Turn")), names.map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", null,
      turnByTurn(points, layout).map((row) =>
        h("tr", null,
          h("th", { scope: "row" }, row.turn === null ? t("End of the game") : t("Turn {n}", { n: num(row.turn) })),
          row.chances.map((chance) => h("td", null, pct(chance))))))));
}

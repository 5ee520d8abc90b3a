// A player's score sheet drawn from the view (docs/api.md, "The view"), as in spec/sheet.md:
// rows x columns, a star per row and per column, School crosses with reserve notes (earlier ones
// struck), struck cells —, zeros 0 (with their cost), doubled scores ×2, the cells that may be
// filled now (a zero or a strike armed by a first tap asks for a second one), and each player's
// last move. The layout comes from the rules: the sections and their titles, each row's face,
// the columns, the zero's penalty.
/** @import { CellView, GameView, LastMoveView, LegalMoveView, RulesView, SheetRowView, SheetView, StarView } from "../../typings/protocol" */
import { clear, h, t, num, signed, roman, rowLabel, zeroCost } from "./common.js";
import { miniDie } from "./dice.js";

/** @param {string} text */
function sr(text) {
  return h("span", { class: "sr-only" }, text);
}

/**
 * @param {RulesView} rules
 * @param {number} column
 */
function columnName(rules, column) {
  return rules.columns > 1 ? t("column {n}", { n: roman(column) }) : "";
}

/**
 * The content of a filled (or empty) cell.
 * @param {CellView | null} cell
 * @param {RulesView} rules
 * @returns {Child[]}
 */
function cellContent(cell, rules) {
  if (!cell) return [];
  switch (cell.mark) {
    case "score": {
      const parts = [h("span", { class: "points" }, num(cell.points))];
      if (cell.doubled) parts.push(h("span", { class: "x2", title: t("doubled") }, h("span", { "aria-hidden": "true" }, "×2"), sr(t("doubled"))));
      if (cell.joker) parts.push(h("span", { class: "joker", title: t("Joker") }, h("span", { "aria-hidden": "true" }, "J"), sr(t("Joker"))));
      return parts;
    }
    case "closed": {
      const parts = [h("span", { class: "cross", "aria-hidden": "true" }, "✕"), sr(t("closed"))];
      if (cell.note !== undefined && cell.note !== null) {
        const note = num(cell.note);
        parts.push(
          cell.note_struck
            ? h("s", { class: "note struck", title: t("earlier reserve note") }, note, sr(` (${t("earlier reserve note")})`))
            : h("span", { class: "note", title: t("reserve") }, note, sr(` (${t("reserve")})`)),
        );
      }
      return parts;
    }
    case "strike":
      return [h("span", { class: "stroke", "aria-hidden": "true" }, "—"), sr(t("struck"))];
    case "zero":
      return [h("span", { class: "zero" }, "0"), sr(t("zero")), rules.zero_penalty ? h("span", { class: "zero-cost" }, zeroCost(rules)) : null];
    default:
      return [String(cell.points ?? "")];
  }
}

/**
 * @param {StarView | null} star
 * @returns {Child[]}
 */
function starContent(star) {
  if (!star) return [];
  if (star.status === "earned") {
    return [h("span", { class: "star earned", title: t("bonus earned") }, h("span", { "aria-hidden": "true" }, "★"), sr(`${t("bonus earned")}: `), " ", num(star.value ?? 0))];
  }
  if (star.status === "struck") {
    return [h("s", { class: "star struck", title: t("bonus out of reach") }, h("span", { "aria-hidden": "true" }, "★")), sr(t("bonus out of reach"))];
  }
  return [h("span", { class: "star open", title: t("bonus still possible") }, h("span", { "aria-hidden": "true" }, "★")), sr(t("bonus still possible"))];
}

/**
 * @param {LegalMoveView} option
 * @param {string} label
 * @param {string} column
 * @param {boolean} [school] a School row (its cell shows the closing's gain)
 */
function moveLabel(option, label, column, school = false) {
  const where = column ? `${label}, ${column}` : label;
  if (option.verb === "strike") return `${where}: ${t("strike")}`;
  // The name holds what the cell shows (the cost of a zero, the ×2 of a doubled score, what a
  // School row's closing adds to the total) outside parentheses: a screen reader's user can say
  // what they see (axe label-content-name-mismatch).
  if (option.verb === "zero") return `${where}: ${t("zero")}, ${signed(option.gain)}`;
  const doubled = option.doubled ? ` ×2 (${t("doubled")})` : "";
  // A School row is closed, not scored: what it does is what the reserve gains or pays (the
  // row itself holds no points), never "score 0".
  if (school) {
    const closing = option.gain ? t("close: the reserve {change}", { change: signed(option.gain) }) : t("close: the reserve stays");
    return `${where}: ${closing}${doubled}`;
  }
  return `${where}: ${t("score {points}", { points: num(option.points) })}${doubled}`;
}

/**
 * The buttons of a fillable cell: the main choice and, beside it, a strike.
 * @param {LegalMoveView[]} options
 * @param {SheetRowView} row
 * @param {RulesView} rules
 * @param {number} column
 * @param {(action: string) => void} onMove
 * @param {string | null} armed the zero or strike waiting for its second tap
 */
function legalButtons(options, row, rules, column, onMove, armed) {
  const label = rowLabel(rules.variant, row.id);
  const colName = columnName(rules, column);
  const score = options.find((o) => o.verb === "score");
  const zero = options.find((o) => o.verb === "zero");
  const strike = options.find((o) => o.verb === "strike");
  const buttons = [];
  const main = score || zero || strike;
  /** @type {(option: LegalMoveView, cls: string, content: Child[]) => HTMLButtonElement} */
  const make = (option, cls, content) =>
    h(
      "button",
      {
        type: "button",
        class: `move ${cls}${option.action === armed ? " armed" : ""}`,
        "data-action": option.action,
        "aria-label": option.action === armed ? `${confirmWords(option, rules)} ${moveLabel(option, label, colName, row.school)}` : moveLabel(option, label, colName, row.school),
        title: option.verb === "score" && option.gain !== undefined ? `${t("total")} ${signed(option.gain)}` : null,
        onclick: (/** @type {Event} */ click) => {
          click.stopPropagation();
          onMove(option.action);
        },
      },
      content,
    );
  if (score && main === score) {
    /** @type {Child[]} */
    let content;
    if (row.school) {
      content = [h("span", { class: "cross" }, "✕"), optionGain(score)];
    } else {
      content = [h("span", { class: "points" }, num(score.points))];
      if (score.doubled) content.push(h("span", { class: "x2" }, "×2"));
    }
    buttons.push(make(score, score.points > 0 || row.school ? "move-score" : "move-score nil", content));
  } else if (zero && main === zero) {
    buttons.push(make(zero, "move-zero", [h("span", { class: "zero" }, signed(zero.gain))]));
  } else if (strike && main === strike) {
    buttons.push(make(strike, "move-strike only", [h("span", { class: "stroke" }, "—")]));
  }
  if (strike && main !== strike) buttons.push(make(strike, "move-strike side", [h("span", { class: "stroke" }, "—")]));
  const waiting = options.find((o) => o.action === armed);
  // The armed move's question, on the cell itself (the button's name says it too).
  if (waiting) buttons.push(h("span", { class: "confirm-tip", "aria-hidden": "true" }, confirmWords(waiting, rules)));
  return buttons;
}

/**
 * The question of an armed zero or strike: "Tap again to take the zero (−200)."
 * @param {LegalMoveView} option
 * @param {RulesView} rules
 */
function confirmWords(option, rules) {
  return option.verb === "zero" ? t("Tap again to take the zero ({cost}).", { cost: zeroCost(rules) }) : t("Tap again to strike this cell.");
}

/** @param {LegalMoveView} option */
function optionGain(option) {
  if (!option.gain) return null;
  return h("span", { class: "gain" }, signed(option.gain));
}

/**
 * How one sheet is drawn: a sheet instead of the seat's own (the tie-break game's), the moves to
 * offer (or none) and what a click on one does, whether the seat is to move now or this
 * browser's, small (another player's), a caption beside the name.
 * @typedef {object} SheetOptions
 * @property {SheetView} [sheet]
 * @property {LegalMoveView[] | null} [legal]
 * @property {(action: string) => void} [onMove]
 * @property {string} [name]
 * @property {boolean} [current]
 * @property {boolean} [mine]
 * @property {boolean} [small]
 * @property {string | null} [caption]
 * @property {string | null} [armed]
 * @property {LastMoveView | null} [lastMove] the seat's last move, marked if it is on this sheet
 * @property {number} [stage] the game this sheet is of (0: the main game, k: tie-break game k)
 */

/**
 * Draw one sheet: the sheet of `seat` in the position `view`.
 * @param {GameView} view
 * @param {number} seat
 * @param {SheetOptions} [opts]
 */
export function renderSheet(view, seat, opts = {}) {
  const rules = view.rules;
  const sheet = opts.sheet || view.sheets[seat];
  const player = view.players[seat] || { name: "", total: 0, forfeited: false };
  const name = opts.name || player.name || t("Open seat");
  const variant = rules.variant;
  const titles = new Map(rules.sections.map((section) => [section.id, section.title]));
  const faces = new Map(rules.rows.map((row) => [row.id, row.face]));
  const columns = rules.columns || 1;
  const onMove = opts.onMove || (() => {});
  const hasStars = Boolean(rules.stars);
  const legal = opts.legal && opts.legal.length ? opts.legal : null;
  const lastMove = opts.lastMove && opts.lastMove.stage === (opts.stage || 0) ? opts.lastMove : null;
  /** @type {Map<string, LegalMoveView[]>} */
  const byRow = new Map();
  if (legal) {
    for (const option of legal) {
      const list = byRow.get(option.row) || [];
      list.push(option);
      byRow.set(option.row, list);
    }
  }
  const width = 1 + columns + (hasStars ? 1 : 0);

  const head = h(
    "tr",
    null,
    h("th", { scope: "col", class: "row-head" }, sr(t("Row"))),
    Array.from({ length: columns }, (_, c) =>
      h("th", { scope: "col", class: "col-head" }, columns > 1 ? h("span", { title: t("column {n}", { n: roman(c) }) }, roman(c)) : t("Points")),
    ),
    hasStars ? h("th", { scope: "col", class: "star-head", title: t("row bonus") }, h("span", { "aria-hidden": "true" }, "★"), sr(t("row bonus"))) : null,
  );

  /** @type {HTMLTableSectionElement[]} */
  const bodies = [];
  /** @type {SheetRowView["section"] | null} */
  let section = null;
  /** @type {HTMLTableSectionElement | null} */
  let body = null;
  /** @type {(id: string | null, into: HTMLTableSectionElement) => void} */
  const sectionEnd = (id, into) => {
    if (id === "upper" && sheet.upper) {
      const upper = sheet.upper;
      const reached = upper.total >= upper.threshold;
      const full = sheet.rows.filter((r) => r.section === "upper").every((r) => r.cells.every((c) => c));
      into.appendChild(
        h("tr", { class: "subtotal" }, h("th", { scope: "row" }, t("Subtotal")),
          h("td", { colspan: columns + (hasStars ? 1 : 0) }, h("span", { class: "points" }, num(upper.total)), h("span", { class: "muted" }, ` / ${num(upper.threshold)}`))),
      );
      const bonusText = sheet.breakdown.upper_bonus ? num(sheet.breakdown.upper_bonus) : full && !reached ? "0" : "";
      into.appendChild(
        h("tr", { class: `bonus-row ${sheet.breakdown.upper_bonus ? "earned" : ""}` },
          h("th", { scope: "row" }, t("Bonus"), h("span", { class: "muted small" }, ` (${t("{points} at {threshold}", { points: num(upper.bonus), threshold: num(upper.threshold) })})`)),
          h("td", { colspan: columns + (hasStars ? 1 : 0) }, bonusText)),
      );
    }
  };
  for (const row of sheet.rows) {
    if (row.section !== section || !body) {
      if (body) sectionEnd(section, body);
      section = row.section;
      body = h("tbody", { class: `section section-${section}` });
      bodies.push(body);
      body.appendChild(h("tr", { class: "section-title" }, h("th", { colspan: width, scope: "colgroup" }, t(titles.get(section) || section))));
    }
    const label = rowLabel(variant, row.id);
    const face = faces.get(row.id) ?? null;
    const options = byRow.get(row.id);
    const firstEmpty = row.cells.findIndex((c) => !c);
    const tr = h("tr", { class: `row ${options ? "has-move" : ""}`, dataset: { row: row.id } });
    tr.appendChild(
      h("th", { scope: "row", class: "row-label" },
        h("span", { class: "rl" },
          face === null ? null : miniDie(face, rules.face_labels),
          h("span", { class: row.school ? "label school-label" : "label" }, label))),
    );
    row.cells.forEach((cell, column) => {
      const classes = ["cell"];
      if (cell) classes.push(`mark-${cell.mark}`);
      if (cell && cell.doubled) classes.push("doubled");
      if (options && column === firstEmpty) {
        classes.push("legal");
        tr.appendChild(h("td", { class: classes.join(" ") }, h("div", { class: "moves" }, legalButtons(options, row, rules, column, onMove, opts.armed || null))));
      } else {
        const last = Boolean(cell) && Boolean(lastMove) && lastMove?.row === row.id && lastMove?.column === column;
        if (last) classes.push("last-move");
        tr.appendChild(h("td", { class: classes.join(" "), title: last ? t("Last move") : null }, cellContent(cell, rules), last ? sr(` (${t("last move")})`) : null));
      }
    });
    if (hasStars) tr.appendChild(h("td", { class: "cell star-cell" }, starContent(row.star)));
    body.appendChild(tr);
  }
  if (body) sectionEnd(section, body);

  const foot = h("tbody", { class: "section section-foot" });
  if (hasStars && sheet.column_stars && sheet.column_stars.length) {
    foot.appendChild(
      h("tr", { class: "column-stars" },
        h("th", { scope: "row" }, h("span", { "aria-hidden": "true" }, "★ "), t("column bonus")),
        sheet.column_stars.map((star) => h("td", { class: "cell star-cell" }, starContent(star))),
        h("td", { class: "cell" })),
    );
  }
  if (rules.yahtzee_bonus) {
    foot.appendChild(
      h("tr", { class: `bonus-row ${sheet.breakdown.yahtzee_bonus ? "earned" : ""}` },
        h("th", { scope: "row" }, t("Yahtzee bonus")),
        h("td", { colspan: columns + (hasStars ? 1 : 0) }, sheet.breakdown.yahtzee_bonus ? num(sheet.breakdown.yahtzee_bonus) : "",
          sheet.jokers ? h("span", { class: "muted small" }, ` · ${t("Jokers: {n}", { n: num(sheet.jokers) })}`) : null)),
    );
  }
  foot.appendChild(
    h("tr", { class: "total-row" }, h("th", { scope: "row" }, t("Total")),
      h("td", { colspan: columns + (hasStars ? 1 : 0) }, num(sheet.breakdown.total))),
  );
  bodies.push(foot);

  // Wide sheets (many columns) scroll sideways on a phone rather than squeeze their cells; the
  // default School sheet (three columns and its stars) fits a 320 px phone whole.
  const minWidth = (opts.small ? 100 : 104) + columns * (opts.small ? 34 : 46) + (hasStars ? 42 : 0);
  const table = h("table", { class: `sheet sheet-${variant} cols-${columns}` },
    h("caption", { class: "sr-only" }, t("Score sheet of {name}", { name })),
    h("colgroup", null,
      h("col", { class: "c-label" }),
      Array.from({ length: columns }, () => h("col", { class: "c-cell" })),
      hasStars ? h("col", { class: "c-star" }) : null),
    h("thead", null, head), bodies);
  // Through the CSS object model: the Content-Security-Policy refuses inline style attributes.
  table.style.minWidth = `${minWidth}px`;

  const card = h("article", {
    class: ["sheet-card", opts.small ? "small" : "big", opts.current ? "current" : "", opts.mine ? "mine" : "", player.forfeited ? "forfeited" : ""].join(" ").trim(),
    dataset: { seat: String(seat) },
    "aria-label": t("Score sheet of {name}", { name }),
  });
  card.appendChild(
    h("header", { class: "sheet-head" },
      h("span", { class: "sheet-name" }, name),
      opts.caption ? h("span", { class: "sheet-caption" }, opts.caption) : null,
      opts.current ? h("span", { class: "badge turn-badge" }, t("to move")) : null,
      player.forfeited ? h("span", { class: "badge lost-badge" }, t("out of time")) : null,
      h("span", { class: "sheet-total", title: t("Total") }, sr(`${t("Total")}: `), num(sheet.breakdown.total))),
  );
  card.appendChild(h("div", { class: "sheet-scroll" }, table));
  if (rules.reserve || hasStars) card.appendChild(summary(sheet));
  return card;
}

/**
 * reserve 5 · zeros 1 · cells 303 · bonuses 88 · total 303 + 88 + 5 − 200 = 196
 * @param {SheetView} sheet
 */
function summary(sheet) {
  const b = sheet.breakdown;
  /** @type {(label: string, value: string, cls?: string) => HTMLElement} */
  const item = (label, value, cls = "") => h("div", { class: `sum-item ${cls}` }, h("dt", null, label), h("dd", null, value));
  const formula = [num(b.cells), b.stars ? ` + ${num(b.stars)}` : "", b.reserve ? ` + ${num(b.reserve)}` : "", b.zero_penalty ? ` − ${num(b.zero_penalty)}` : "", ` = ${num(b.total)}`].join("");
  return h("dl", { class: "sheet-summary" },
    item(t("reserve"), num(b.reserve), "reserve"),
    item(t("zeros"), num(b.zeros), b.zeros ? "bad" : ""),
    item(t("cells"), num(b.cells)),
    item(t("bonuses"), num(b.stars), b.stars ? "good" : ""),
    item(t("total"), formula, "formula"));
}

/**
 * Where and how the sheets of a position are drawn: `big` (a seat) in `mainBox`, the others in
 * `othersBox`; the seat to move, the moves to offer on the big sheet and what a click on one
 * does, this browser's seats and the players' names.
 * @typedef {object} SheetsLayout
 * @property {HTMLElement} mainBox
 * @property {HTMLElement} othersBox
 * @property {number} big
 * @property {number | null} turnSeat
 * @property {LegalMoveView[] | null} [legal]
 * @property {(action: string) => void} [onMove]
 * @property {string | null} [armed] the zero or strike waiting for its second tap
 * @property {number[]} [mine]
 * @property {(seat: number) => string} [nameOf]
 */

/**
 * Draw every sheet of a position: `big` in mainBox, the others smaller in othersBox. During a
 * tie-break the contenders' tie-break sheets are the live ones and their main-game sheets
 * follow, small.
 * @param {GameView} state
 * @param {SheetsLayout} opts
 */
export function drawSheets(state, opts) {
  const mine = opts.mine || [];
  const nameOf = opts.nameOf || ((/** @type {number} */ seat) => (state.players[seat] ? state.players[seat].name : ""));
  const tiebreak = state.tiebreak;
  /** @type {(seat: number) => SheetView | null} */
  const live = (seat) => (tiebreak && tiebreak.sheets && tiebreak.sheets[String(seat)]) || null;
  /** @type {(sheet: SheetView | null) => string | null} */
  const caption = (sheet) => (sheet && tiebreak ? t("Tie-break game {n}", { n: tiebreak.game }) : null);
  const big = opts.big;
  const bigSheet = live(big);
  /** @type {(seat: number) => LastMoveView | null} */
  const lastOf = (seat) => (state.last_moves && state.last_moves[seat]) || null;
  const stage = tiebreak ? tiebreak.game : 0;
  clear(opts.mainBox).appendChild(
    renderSheet(state, big, {
      sheet: bigSheet || undefined,
      caption: caption(bigSheet),
      legal: opts.legal || null,
      onMove: opts.onMove || (() => {}),
      armed: opts.armed || null,
      lastMove: lastOf(big),
      stage: bigSheet ? stage : 0,
      name: nameOf(big),
      current: big === opts.turnSeat,
      mine: mine.includes(big),
    }),
  );
  const others = clear(opts.othersBox);
  state.players.forEach((_, seat) => {
    if (seat === big) return;
    const sheet = live(seat);
    others.appendChild(
      renderSheet(state, seat, {
        sheet: sheet || undefined,
        caption: caption(sheet),
        small: !state.finished,
        lastMove: lastOf(seat),
        stage: sheet ? stage : 0,
        name: nameOf(seat),
        current: seat === opts.turnSeat,
        mine: mine.includes(seat),
      }),
    );
  });
  if (tiebreak) {
    for (const seat of tiebreak.seats || []) {
      others.appendChild(renderSheet(state, seat, { small: true, name: nameOf(seat), caption: t("Main game") }));
    }
  }
  others.hidden = !others.childElementCount;
}

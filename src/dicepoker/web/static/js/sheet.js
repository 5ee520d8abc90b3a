// A player's score sheet drawn from the view (docs/api.md, "The view"), as in spec/sheet.md:
// rows x columns, a star per row and per column, School crosses with reserve notes (earlier ones
// struck), struck cells —, zeros 0, doubled scores ×2, and the cells that may be filled now.
import { clear, h, t, num, signed, roman, rowLabel } from "./common.js";
import { miniDie } from "./dice.js";

const SECTION_TITLE = {
  school: { upper: "School", lower: "Combinations" },
  default: { upper: "Upper section", lower: "Lower section" },
};

function sr(text) {
  return h("span", { class: "sr-only" }, text);
}

function columnName(rules, column) {
  return rules.columns > 1 ? t("column {n}", { n: roman(column) }) : "";
}

/** The content of a filled (or empty) cell. */
function cellContent(cell) {
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
      return [h("span", { class: "zero" }, "0"), sr(t("zero"))];
    default:
      return [String(cell.points ?? "")];
  }
}

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

function moveLabel(option, label, column) {
  const where = column ? `${label}, ${column}` : label;
  if (option.verb === "strike") return `${where}: ${t("strike")}`;
  if (option.verb === "zero") return `${where}: ${t("zero")} (${signed(option.gain ?? -200)})`;
  const doubled = option.doubled ? ` (${t("doubled")})` : "";
  return `${where}: ${t("score {points}", { points: num(option.points) })}${doubled}`;
}

/** The buttons of a fillable cell: the main choice and, beside it, a strike. */
function legalButtons(options, row, rules, column, onMove) {
  const label = rowLabel(rules.preset, row.id);
  const colName = columnName(rules, column);
  const score = options.find((o) => o.verb === "score");
  const zero = options.find((o) => o.verb === "zero");
  const strike = options.find((o) => o.verb === "strike");
  const buttons = [];
  const main = score || zero || strike;
  const make = (option, cls, content) =>
    h(
      "button",
      {
        type: "button",
        class: `move ${cls}`,
        "data-action": option.action,
        "aria-label": moveLabel(option, label, colName),
        title: option.verb === "score" && option.gain !== undefined ? `${t("total")} ${signed(option.gain)}` : null,
        onclick: (event) => {
          event.stopPropagation();
          onMove(option.action);
        },
      },
      content,
    );
  if (main === score) {
    let content;
    if (row.school) {
      content = [h("span", { class: "cross" }, "✕"), option_gain(score)];
    } else {
      content = [h("span", { class: "points" }, num(score.points))];
      if (score.doubled) content.push(h("span", { class: "x2" }, "×2"));
    }
    buttons.push(make(score, score.points > 0 || row.school ? "move-score" : "move-score nil", content));
  } else if (main === zero) {
    buttons.push(make(zero, "move-zero", [h("span", { class: "zero" }, "0")]));
  } else if (main === strike) {
    buttons.push(make(strike, "move-strike only", [h("span", { class: "stroke" }, "—")]));
  }
  if (strike && main !== strike) buttons.push(make(strike, "move-strike side", [h("span", { class: "stroke" }, "—")]));
  return buttons;
}

function option_gain(option) {
  if (!option.gain) return null;
  return h("span", { class: "gain" }, signed(option.gain));
}

/**
 * Draw one sheet.
 *   view: the whole state; seat: whose sheet; opts: {sheet (override, for the tie-break game),
 *   legal (moves to offer, or null), onMove(action), current (to move now), mine, small, caption}
 */
export function renderSheet(view, seat, opts = {}) {
  const rules = view.rules;
  const sheet = opts.sheet || view.sheets[seat];
  const player = view.players[seat] || { name: "", total: 0 };
  const name = opts.name || player.name || t("Open seat");
  const preset = rules.preset;
  const titles = SECTION_TITLE[preset] || SECTION_TITLE.default;
  const columns = rules.columns || 1;
  const hasStars = Boolean(rules.stars);
  const legal = opts.legal && opts.legal.length ? opts.legal : null;
  const byRow = new Map();
  if (legal) {
    for (const option of legal) {
      if (!byRow.has(option.row)) byRow.set(option.row, []);
      byRow.get(option.row).push(option);
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

  const bodies = [];
  let section = null;
  let body = null;
  const sectionEnd = (name) => {
    if (name === "upper" && sheet.upper) {
      const upper = sheet.upper;
      const reached = upper.total >= upper.threshold;
      const full = sheet.rows.filter((r) => r.section === "upper").every((r) => r.cells.every((c) => c));
      body.appendChild(
        h("tr", { class: "subtotal" }, h("th", { scope: "row" }, t("Subtotal")),
          h("td", { colspan: columns + (hasStars ? 1 : 0) }, h("span", { class: "points" }, num(upper.total)), h("span", { class: "muted" }, ` / ${num(upper.threshold)}`))),
      );
      const bonusText = sheet.breakdown.upper_bonus ? num(sheet.breakdown.upper_bonus) : full && !reached ? "0" : "";
      body.appendChild(
        h("tr", { class: `bonus-row ${sheet.breakdown.upper_bonus ? "earned" : ""}` },
          h("th", { scope: "row" }, t("Bonus"), h("span", { class: "muted small" }, ` (${t("{points} at {threshold}", { points: num(upper.bonus), threshold: num(upper.threshold) })})`)),
          h("td", { colspan: columns + (hasStars ? 1 : 0) }, bonusText)),
      );
    }
  };
  sheet.rows.forEach((row, rowIndex) => {
    if (row.section !== section) {
      if (body) sectionEnd(section);
      section = row.section;
      body = h("tbody", { class: `section section-${section}` });
      bodies.push(body);
      body.appendChild(h("tr", { class: "section-title" }, h("th", { colspan: width, scope: "colgroup" }, t(titles[section] || section))));
    }
    const label = rowLabel(preset, row.id);
    const faceIndex = rowIndex + 1;
    const showDie = row.section === "upper" && faceIndex <= 6;
    const options = byRow.get(row.id);
    const firstEmpty = row.cells.findIndex((c) => !c);
    const tr = h("tr", { class: `row ${options ? "has-move" : ""}`, dataset: { row: row.id } });
    tr.appendChild(
      h("th", { scope: "row", class: "row-label" },
        h("span", { class: "rl" },
          showDie ? miniDie(faceIndex, rules.face_labels) : null,
          h("span", { class: row.school ? "label school-label" : "label" }, label))),
    );
    row.cells.forEach((cell, column) => {
      const classes = ["cell"];
      if (cell) classes.push(`mark-${cell.mark}`);
      if (cell && cell.doubled) classes.push("doubled");
      if (options && column === firstEmpty) {
        classes.push("legal");
        tr.appendChild(h("td", { class: classes.join(" ") }, h("div", { class: "moves" }, legalButtons(options, row, rules, column, opts.onMove))));
      } else {
        tr.appendChild(h("td", { class: classes.join(" ") }, cellContent(cell)));
      }
    });
    if (hasStars) tr.appendChild(h("td", { class: "cell star-cell" }, starContent(row.star)));
    body.appendChild(tr);
  });
  if (body) sectionEnd(section);

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

  // Wide sheets (many columns) scroll sideways on a phone rather than squeeze their cells.
  const minWidth = (opts.small ? 110 : 130) + columns * (opts.small ? 34 : 46) + (hasStars ? 54 : 0);
  const table = h("table", { class: `sheet sheet-${preset} cols-${columns}` },
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

/** reserve 5 · zeros 1 · cells 303 · bonuses 88 · total 303 + 88 + 5 − 200 = 196 */
function summary(sheet) {
  const b = sheet.breakdown;
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
 * Draw every sheet of a position: `big` in mainBox, the others smaller in othersBox. During a
 * poker-dice tie-break the contenders' tie-break sheets are the live ones and their main-game
 * sheets follow, small. opts: {mainBox, othersBox, big, turnSeat, legal, onMove, mine, nameOf}
 */
export function drawSheets(state, opts) {
  const mine = opts.mine || [];
  const nameOf = opts.nameOf || ((seat) => (state.players[seat] ? state.players[seat].name : ""));
  const tiebreak = state.tiebreak;
  const live = (seat) => (tiebreak && tiebreak.sheets && tiebreak.sheets[String(seat)]) || null;
  const caption = (sheet) => (sheet ? t("Tie-break game {n}", { n: tiebreak.game }) : null);
  const big = opts.big;
  const bigSheet = live(big);
  clear(opts.mainBox).appendChild(
    renderSheet(state, big, {
      sheet: bigSheet || undefined,
      caption: caption(bigSheet),
      legal: opts.legal || null,
      onMove: opts.onMove,
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

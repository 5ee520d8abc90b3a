// The lobby (/): create a game, join or watch one, import a record.
import {
  $, ago, api, clear, errorText, h, levelName, loadCatalog, loadTokens, num, presetName,
  rememberName, saveToken, savedName, t, tk,
} from "./common.js";
import { paintFace } from "./dice.js";

const FALLBACK_LEVELS = ["random", "greedy"];
const MAX_SEATS = { school: 4, "poker-dice": 4, yahtzee: 8, yahtzee15: 8 };
const CLOCK_OPTION = "turn_seconds";

let presets = new Map(); // name -> {name, options: [...]}
let levels = FALLBACK_LEVELS;
let seats = [];

function variant() {
  const checked = document.querySelector('input[name="variant"]:checked');
  return checked ? checked.value : "school";
}

function maxSeats() {
  return MAX_SEATS[variant()] || 4;
}

// --- presets and options -----------------------------------------------------------------------

function normalisePresets(data) {
  const map = new Map();
  let list = [];
  if (Array.isArray(data)) list = data;
  else if (data && Array.isArray(data.presets)) list = data.presets;
  else if (data && data.presets && typeof data.presets === "object") list = Object.entries(data.presets).map(([name, p]) => ({ name, ...p }));
  for (const preset of list) {
    if (!preset || !preset.name) continue;
    let options = preset.options || [];
    if (!Array.isArray(options)) options = Object.entries(options).map(([name, spec]) => ({ name, ...spec }));
    map.set(preset.name, { ...preset, options });
  }
  return map;
}

function renderOptions() {
  const body = clear($("#options-body"));
  const preset = presets.get(variant());
  const options = preset ? preset.options.filter((o) => o.name !== CLOCK_OPTION) : [];
  $("#preset-options").hidden = options.length === 0;
  for (const option of options) {
    const id = `opt-${option.name}`;
    const label = tk(`option.${option.name}`, option.help || option.name);
    const type = option.type || (typeof option.default === "boolean" ? "bool" : "int");
    if (type === "bool" || type === "boolean") {
      body.appendChild(
        h("label", { class: "check", for: id },
          h("input", { type: "checkbox", id, "data-option": option.name, "data-type": "bool", checked: option.default !== false }),
          " ", label),
      );
    } else {
      body.appendChild(
        h("div", { class: "field" },
          h("label", { for: id }, label),
          h("input", {
            type: "number", id, inputmode: "numeric", "data-option": option.name, "data-type": "int",
            min: option.minimum ?? option.min ?? null, max: option.maximum ?? option.max ?? null,
            value: option.default ?? "", step: 1,
          })),
      );
    }
  }
  // The turn clock: the preset's own option in poker-dice (default on, 60 s), a bot otherwise.
  const poker = variant() === "poker-dice";
  const on = $("#clock-on");
  if (on.dataset.touched !== "1") on.checked = poker;
  $("#clock-seconds").disabled = !on.checked;
  $("#clock-hint").textContent = poker ? t("Running out of time loses the game.") : t("When the time runs out, a bot plays the turn.");
  $("#preset-rules-link").href = `/rules/${variant()}`;
  $("#preset-rules-link").textContent = t("Read the rules of {game}", { game: presetName(variant()) });
}

function readOptions() {
  const options = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    if (input.dataset.type === "bool") options[input.dataset.option] = input.checked;
    else if (input.value !== "") options[input.dataset.option] = Number(input.value);
  }
  return options;
}

// --- seats -------------------------------------------------------------------------------------

function renderSeats() {
  const list = clear($("#seat-list"));
  seats.forEach((seat, index) => {
    const kindId = `seat-kind-${index}`;
    const nameId = `seat-name-${index}`;
    const row = h("li", { class: `seat-row seat-${seat.kind}` });
    row.appendChild(h("span", { class: "seat-n", "aria-hidden": "true" }, num(index + 1)));
    row.appendChild(
      h("label", { class: "sr-only", for: kindId }, t("Player {n}", { n: index + 1 })),
    );
    const kind = h("select", { id: kindId, class: "seat-kind", onchange: (e) => { seat.kind = e.target.value; renderSeats(); } },
      h("option", { value: "human", selected: seat.kind === "human" }, t("Person")),
      h("option", { value: "bot", selected: seat.kind === "bot" }, t("Bot")));
    row.appendChild(kind);
    if (seat.kind === "human") {
      row.appendChild(h("label", { class: "sr-only", for: nameId }, t("Name of player {n}", { n: index + 1 })));
      row.appendChild(
        h("input", {
          id: nameId, type: "text", class: "seat-name", maxlength: 40, value: seat.name || "",
          placeholder: index === 0 ? t("Your name") : t("Open seat: a friend joins"),
          autocomplete: index === 0 ? "nickname" : "off",
          oninput: (e) => { seat.name = e.target.value; },
        }),
      );
    } else {
      row.appendChild(h("label", { class: "sr-only", for: nameId }, t("Level of bot {n}", { n: index + 1 })));
      row.appendChild(
        h("select", { id: nameId, class: "seat-level", onchange: (e) => { seat.level = e.target.value; } },
          levels.map((level) => h("option", { value: level, selected: seat.level === level }, levelName(level)))),
      );
    }
    row.appendChild(
      h("button", {
        type: "button", class: "btn icon ghost remove-seat", "aria-label": t("Remove player {n}", { n: index + 1 }),
        title: t("Remove player {n}", { n: index + 1 }), disabled: seats.length <= 1,
        onclick: () => { seats.splice(index, 1); renderSeats(); },
      }, "✕"),
    );
    list.appendChild(row);
  });
  $("#add-seat").disabled = seats.length >= maxSeats();
}

function addSeat() {
  if (seats.length >= maxSeats()) return;
  seats.push({ kind: "bot", name: "", level: levels.includes("greedy") ? "greedy" : levels[0] });
  renderSeats();
  const last = document.querySelector("#seat-list li:last-child select");
  if (last) last.focus();
}

// --- create ------------------------------------------------------------------------------------

async function create(event) {
  event.preventDefault();
  const error = $("#create-error");
  error.textContent = "";
  if (seats.length > maxSeats()) seats = seats.slice(0, maxSeats());
  const body = {
    variant: variant(),
    options: readOptions(),
    seats: seats.map((seat) =>
      seat.kind === "bot" ? { kind: "bot", level: seat.level || "greedy" } : seat.name.trim() ? { kind: "human", name: seat.name.trim() } : { kind: "human" },
    ),
  };
  const on = $("#clock-on").checked;
  const seconds = Math.max(5, Math.min(3600, Number($("#clock-seconds").value) || 60));
  body.turn_seconds = on ? seconds : 0;
  const button = $("#create-button");
  button.disabled = true;
  const result = await api("POST", "/api/games", body);
  button.disabled = false;
  if (!result.ok || !result.data || !result.data.id) {
    error.textContent = errorText(result);
    return;
  }
  const data = result.data;
  for (const seat of data.seats || []) {
    if (seat.token) saveToken(data.id, seat.seat, seat.token);
  }
  const first = seats.find((s) => s.kind === "human" && s.name.trim());
  if (first) rememberName(first.name.trim());
  window.location.href = data.url || `/g/${encodeURIComponent(data.id)}`;
}

// --- game lists --------------------------------------------------------------------------------

function gameItem(game, status) {
  const mine = Object.keys(loadTokens(game.id)).length > 0;
  const players = (game.players || []).map((name) => (name === null || name === undefined ? null : String(name)));
  const open = players.filter((p) => p === null).length;
  const names = players.filter((p) => p !== null);
  let action;
  if (mine && status !== "finished") action = t("Continue");
  else if (status === "open") action = t("Join");
  else if (status === "running") action = t("Watch");
  else action = t("Results");
  let detail = presetName(game.variant);
  if (game.variant === "school" && game.options && game.options.columns) detail += ` · ${t("Columns: {n}", { n: game.options.columns })}`;
  const when = ago(game.updated_at || game.created_at);
  return h("li", { class: "game-item" },
    h("a", { class: "game-link", href: `/g/${encodeURIComponent(game.id)}` },
      h("span", { class: "game-main" },
        h("span", { class: "game-players" }, names.length ? names.join(" · ") : t("Nobody yet")),
        h("span", { class: "game-detail" }, detail, when ? ` · ${when}` : "", open ? ` · ${t("Open seats: {n}", { n: open })}` : "")),
      h("span", { class: `game-action ${status}` }, action)),
    status === "finished" ? h("a", { class: "game-replay", href: `/replay/g/${encodeURIComponent(game.id)}`, "aria-label": `${t("Watch the replay")}: ${names.join(", ")}` }, t("Replay")) : null);
}

async function loadList(status) {
  const box = document.querySelector(`.game-list[data-status="${status}"]`);
  const result = await api("GET", `/api/games?status=${status}&limit=30`);
  const count = $(`#count-${status}`);
  if (!result.ok || !result.data) {
    if (!box.childElementCount) box.appendChild(h("p", { class: "empty" }, errorText(result)));
    return;
  }
  const games = Array.isArray(result.data.games) ? result.data.games : [];
  count.textContent = games.length ? num(games.length) : "";
  clear(box);
  if (!games.length) {
    const empty = { open: t("No open games. Create one and invite a friend!"), running: t("Nobody is playing right now."), finished: t("No finished games yet.") };
    box.appendChild(h("p", { class: "empty" }, empty[status]));
    return;
  }
  box.appendChild(h("ul", { class: "games" }, games.map((game) => gameItem(game, status))));
}

function loadLists() {
  return Promise.all(["open", "running", "finished"].map(loadList));
}

function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const select = (tab) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute("aria-selected", on ? "true" : "false");
      other.tabIndex = on ? 0 : -1;
      document.getElementById(other.getAttribute("aria-controls")).hidden = !on;
    }
  };
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      const next = tabs[(index + (event.key === "ArrowRight" ? 1 : -1) + tabs.length) % tabs.length];
      select(next);
      next.focus();
      event.preventDefault();
    });
  });
}

// --- import ------------------------------------------------------------------------------------

async function importRecord(event) {
  event.preventDefault();
  const error = $("#import-error");
  error.textContent = "";
  const file = $("#import-file").files[0];
  if (!file) {
    error.textContent = t("Choose a record file first.");
    return;
  }
  if (file.size > 1024 * 1024) {
    error.textContent = t("This file is too large (1 MiB at most).");
    return;
  }
  const text = await file.text();
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    error.textContent = t("This file is not JSON.");
    return;
  }
  const result = await api("POST", "/api/records", record);
  if (!result.ok || !result.data || !result.data.id) {
    error.textContent = errorText(result);
    return;
  }
  window.location.href = result.data.url || `/replay/r/${encodeURIComponent(result.data.id)}`;
}

// --- start -------------------------------------------------------------------------------------

async function start() {
  await loadCatalog();
  for (const die of document.querySelectorAll(".hero-dice .die")) paintFace(die, Number(die.dataset.face), null);
  const name = savedName();
  seats = [
    { kind: "human", name, level: "greedy" },
    { kind: "bot", name: "", level: "greedy" },
  ];
  renderSeats();
  renderOptions();
  const result = await api("GET", "/api/presets");
  if (result.ok && result.data) {
    presets = normalisePresets(result.data);
    const found = result.data.levels || result.data.bot_levels;
    if (Array.isArray(found) && found.length) levels = found.map(String);
    renderSeats();
    renderOptions();
  }
  for (const radio of document.querySelectorAll('input[name="variant"]')) {
    radio.addEventListener("change", () => {
      if (seats.length > maxSeats()) seats = seats.slice(0, maxSeats());
      renderOptions();
      renderSeats();
    });
  }
  $("#clock-on").addEventListener("change", (e) => {
    e.target.dataset.touched = "1";
    $("#clock-seconds").disabled = !e.target.checked;
  });
  $("#add-seat").addEventListener("click", addSeat);
  $("#create-form").addEventListener("submit", create);
  $("#import-form").addEventListener("submit", importRecord);
  setupTabs();
  await loadLists();
  setInterval(() => {
    if (document.visibilityState === "visible") loadLists();
  }, 15000);
}

start();

// The lobby (/): create a game, join or watch one, import a record.
/** @import { GameCreated, GameList, GameListEntry, RecordStored, VariantInfo, VariantList } from "../../typings/protocol" */
/** @typedef {GameListEntry["status"]} GameStatus */
import {
  $, ago, api, clear, errorText, h, levelName, loadCatalog, loadTokens, num, onSubmit, variantName,
  rememberName, saveToken, savedName, shownName, t, tk,
} from "./common.js";
import { paintFace } from "./dice.js";

const FALLBACK_LEVELS = ["random", "greedy"];
/** The ladder's levels, weakest first (GET /api/variants), and each pool's bot ratings. */
let ladder = /** @type {string[]} */ ([]);
let levelRatings = /** @type {Record<string, Record<string, number>>} */ ({});

/** @type {Map<string, VariantInfo>} name -> the variant as GET /api/variants describes it */
let variants = new Map();
let levels = FALLBACK_LEVELS;
/** @typedef {{ kind: string, name: string, level: string, account?: boolean }} SeatChoice a row
 * of the form (`account`: the logged-in player's own seat) */
/** @type {SeatChoice[]} */
let seats = [];
/** The logged-in account's name (GET /api/me), or null. */
let me = /** @type {string | null} */ (null);

/** The variant chosen in the form (the one the page offers first, until another is). */
function chosenVariant() {
  const checked = document.querySelector('input[name="variant"]:checked') || document.querySelector('input[name="variant"]');
  return checked instanceof HTMLInputElement ? checked.value : "";
}

/** The rules of the chosen variant with its default options, once the server has said them. */
function chosenRules() {
  const variant = variants.get(chosenVariant());
  return (variant && variant.rules) || null;
}

/** How many players the chosen variant takes (as many as there are, until the rules are known). */
function maxSeats() {
  const rules = chosenRules();
  return rules ? rules.max_players : seats.length;
}

function minSeats() {
  const rules = chosenRules();
  return Math.max(1, rules ? rules.min_players : 1);
}

// --- variants and options -----------------------------------------------------------------------

/**
 * The variants of GET /api/variants by name.
 * @param {VariantList} data
 */
function variantsByName(data) {
  /** @type {Map<string, VariantInfo>} */
  const map = new Map();
  for (const variant of Array.isArray(data.variants) ? data.variants : []) {
    if (!variant || !variant.name) continue;
    map.set(variant.name, { ...variant, options: Array.isArray(variant.options) ? variant.options : [] });
  }
  return map;
}

function renderOptions() {
  const body = clear($("#options-body"));
  const variant = variants.get(chosenVariant());
  const rules = chosenRules();
  // A variant's own clock option is set by the turn clock's fieldset, not among the options.
  const clockOption = rules ? rules.clock.option : null;
  const options = variant ? variant.options.filter((o) => o.name !== clockOption) : [];
  $("#variant-options").hidden = options.length === 0;
  for (const option of options) {
    const id = `opt-${option.name}`;
    const label = tk(`option.${option.name}`, option.help || option.name);
    const type = option.type || (typeof option.default === "boolean" ? "bool" : "int");
    if (type === "bool") {
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
            min: option.minimum ?? null, max: option.maximum ?? null,
            value: option.default ?? "", step: 1,
          })),
      );
    }
  }
  // The turn clock: on by default where the variant has a clock of its own (with its default
  // for online games); what running out of time does is the rules' to say.
  const clock = rules ? rules.clock : null;
  const on = $("#clock-on", HTMLInputElement);
  const seconds = $("#clock-seconds", HTMLInputElement);
  if (on.dataset.touched !== "1") on.checked = Boolean(clock && clock.online_default);
  if (seconds.dataset.touched !== "1" && clock && clock.online_default) seconds.value = String(clock.online_default);
  seconds.disabled = !on.checked;
  $("#clock-hint").textContent = clock && clock.on_timeout === "lose" ? t("Running out of time loses the game.") : t("When the time runs out, a bot plays the turn.");
  const link = $("#variant-rules-link", HTMLAnchorElement);
  link.href = `/rules/${chosenVariant()}`;
  link.textContent = t("Read the rules of {game}", { game: variantName(chosenVariant()) });
}

/** The rating pool of the game the form makes: the variant, then each pool option's value. */
function chosenPool() {
  const variant = variants.get(chosenVariant());
  const parts = [chosenVariant()];
  const set = readOptions();
  for (const option of variant ? variant.options : []) {
    if (option.pool) parts.push(String(set[option.name] ?? option.default ?? ""));
  }
  return parts.join("-");
}

/**
 * A bot level as the picker names it: with its rating in the chosen pool where one is known.
 * @param {string} level
 */
function levelLabel(level) {
  // Only a ladder level's rating says how strong it plays on the scale of people's ratings; a
  // reference bot (random, greedy, ...) is measured too, but its number ("Random · -489") would
  // read as a broken rating rather than as the yardstick it is.
  const rating = ladder.includes(level) ? (levelRatings[chosenPool()] || {})[level] : undefined;
  return rating === undefined ? levelName(level) : `${levelName(level)} · ${num(rating)}`;
}

/** A newcomer's rating: where every account starts (docs/ratings.md). */
const NEWCOMER_RATING = 1500;

/**
 * The bot a new seat gets: the ladder's level nearest a newcomer's rating in the chosen pool
 * (a fair first game), else Intermediate, else the first level known.
 */
function defaultLevel() {
  const ratings = levelRatings[chosenPool()] || {};
  const rated = ladder.filter((level) => levels.includes(level) && ratings[level] !== undefined);
  if (rated.length) {
    return rated.reduce((best, level) =>
      Math.abs(ratings[level] - NEWCOMER_RATING) < Math.abs(ratings[best] - NEWCOMER_RATING) ? level : best);
  }
  if (levels.includes("intermediate")) return "intermediate";
  return ladder.find((level) => levels.includes(level)) || levels[0];
}

/**
 * The picker's options: the ladder's levels, weakest first, then the reference bots, named as
 * such (they are yardsticks for the analysis and the ratings, not steps of the ladder).
 * @param {string} chosen
 */
function levelOptions(chosen) {
  /** @param {string} level */
  const option = (level) => h("option", { value: level, selected: chosen === level }, levelLabel(level));
  const steps = levels.filter((level) => ladder.includes(level));
  const others = levels.filter((level) => !ladder.includes(level));
  if (!steps.length) return others.map(option);
  return [
    h("optgroup", { label: t("Levels") }, ...steps.map(option)),
    h("optgroup", { label: t("Reference bots") }, ...others.map(option)),
  ];
}

/** The options as the form sets them. */
function readOptions() {
  /** @type {Record<string, boolean | number>} */
  const options = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    if (!(input instanceof HTMLInputElement) || !input.dataset.option) continue;
    if (input.dataset.type === "bool") options[input.dataset.option] = input.checked;
    else if (input.value !== "") options[input.dataset.option] = Number(input.value);
  }
  return options;
}

/**
 * The value a form control holds (the seat rows' selects and inputs).
 * @param {Event} change
 */
function valueOf(change) {
  const target = change.target;
  return target instanceof HTMLInputElement || target instanceof HTMLSelectElement ? target.value : "";
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
    const kind = h("select", { id: kindId, class: "seat-kind", onchange: (/** @type {Event} */ e) => {
      seat.kind = valueOf(e);
      if (seat.kind === "bot" && !seat.level) seat.level = defaultLevel();
      renderSeats();
    } },
      h("option", { value: "human", selected: seat.kind === "human" }, t("Person")),
      h("option", { value: "bot", selected: seat.kind === "bot" }, t("Bot")));
    row.appendChild(kind);
    if (seat.kind === "human" && seat.account && me) {
      row.appendChild(h("label", { class: "sr-only", for: nameId }, t("Name of player {n}", { n: index + 1 })));
      row.appendChild(h("input", { id: nameId, type: "text", class: "seat-name seat-account", value: me, readonly: true, title: t("You play under your account") }));
    } else if (seat.kind === "human") {
      row.appendChild(h("label", { class: "sr-only", for: nameId }, t("Name of player {n}", { n: index + 1 })));
      row.appendChild(
        h("input", {
          id: nameId, type: "text", class: "seat-name", maxlength: 40, value: seat.name || "",
          placeholder: index === 0 ? t("Your name") : t("Open seat: a friend joins"),
          autocomplete: index === 0 ? "nickname" : "off",
          oninput: (/** @type {Event} */ e) => { seat.name = valueOf(e); renderRated(); },
        }),
      );
    } else {
      row.appendChild(h("label", { class: "sr-only", for: nameId }, t("Level of bot {n}", { n: index + 1 })));
      row.appendChild(
        h("select", { id: nameId, class: "seat-level", onchange: (/** @type {Event} */ e) => { seat.level = valueOf(e); } },
          levelOptions(seat.level)),
      );
    }
    row.appendChild(
      h("button", {
        type: "button", class: "btn icon ghost remove-seat", "aria-label": t("Remove player {n}", { n: index + 1 }),
        title: t("Remove player {n}", { n: index + 1 }), disabled: seats.length <= minSeats(),
        onclick: () => { seats.splice(index, 1); renderSeats(); },
      }, "✕"),
    );
    list.appendChild(row);
  });
  $("#add-seat", HTMLButtonElement).disabled = seats.length >= maxSeats();
  renderRated();
}

/** The rated switch: for a logged-in player, and said plainly when the seats keep it unrated. */
function renderRated() {
  const box = $("#rated-on", HTMLInputElement);
  const hint = $("#rated-hint");
  box.disabled = !me;
  if (!me) {
    box.checked = false;
    hint.textContent = t("Log in to play rated games.");
    renderHelp();
    return;
  }
  const anonymous = seats.some((seat) => seat.kind === "human" && !seat.account && seat.name.trim());
  const people = seats.length;
  if (!box.checked) hint.textContent = t("Rated games count for your rating.");
  else if (people < 2) hint.textContent = t("Not rated: a game alone is not rated.");
  else if (anonymous) hint.textContent = t("Not rated: a player has no account.");
  else hint.textContent = t("Rated when it ends if every person plays under an account.");
  renderHelp();
}

/** Whether the game has people besides its creator (open seats count: friends will join). */
function withPeople() {
  return seats.filter((seat) => seat.kind === "human").length > 1;
}

/**
 * The hints switch (docs/fair-play.md): a game with other people is played without the
 * expert's help unless its creator allows it; practice alone or against bots has it unless
 * its creator turns it off; a rated game never has it, so it offers no switch.
 */
function renderHelp() {
  const rated = Boolean(me) && $("#rated-on", HTMLInputElement).checked;
  $("#help-field").hidden = rated;
  const box = $("#help-on", HTMLInputElement);
  const people = withPeople();
  const mode = people ? "allow" : "without";
  if (box.dataset.mode !== mode) {
    box.dataset.mode = mode;
    box.checked = false; // each default is the switch off
  }
  $("#help-label").textContent = people ? t("Allow hints (the expert's advice) in this game") : t("Play without hints");
}

/** What the game asks of the hints: `assisted` as the switch says, or nothing (the default). */
function askedHelp() {
  const box = $("#help-on", HTMLInputElement);
  if ($("#help-field").hidden || !box.checked) return {};
  return { assisted: box.dataset.mode === "allow" };
}

function addSeat() {
  if (seats.length >= maxSeats()) return;
  seats.push({ kind: "bot", name: "", level: defaultLevel() });
  renderSeats();
  const last = document.querySelector("#seat-list li:last-child select");
  if (last instanceof HTMLElement) last.focus();
}

// --- create ------------------------------------------------------------------------------------

/** @param {Event} submit */
async function create(submit) {
  submit.preventDefault();
  const error = $("#create-error");
  error.textContent = "";
  if (seats.length > maxSeats()) seats = seats.slice(0, maxSeats());
  const on = $("#clock-on", HTMLInputElement).checked;
  const seconds = Math.max(5, Math.min(3600, Number($("#clock-seconds", HTMLInputElement).value) || 60));
  const body = {
    variant: chosenVariant(),
    options: readOptions(),
    seats: seats.map((seat) =>
      seat.kind === "bot" ? { kind: "bot", level: seat.level || defaultLevel() }
        : seat.account && me ? { kind: "human", account: true }
          : seat.name.trim() ? { kind: "human", name: seat.name.trim() } : { kind: "human" },
    ),
    turn_seconds: on ? seconds : 0,
    rated: Boolean(me) && $("#rated-on", HTMLInputElement).checked,
    ...askedHelp(),
  };
  const button = $("#create-button", HTMLButtonElement);
  button.disabled = true;
  const result = await api("POST", "/api/games", body);
  button.disabled = false;
  const created = /** @type {GameCreated | null} */ (result.ok ? result.data : null);
  if (!created || !created.id) {
    error.textContent = errorText(result);
    return;
  }
  for (const seat of created.seats || []) {
    if (seat.token) saveToken(created.id, seat.seat, seat.token);
  }
  const first = seats.find((s) => s.kind === "human" && !s.account && s.name.trim());
  if (first && !me) rememberName(first.name.trim());
  const url = created.url || `/g/${encodeURIComponent(created.id)}`;
  if (body.rated && !created.rated) {
    // Asked to be rated, but it will not be: say so before going to the table.
    error.textContent = created.unrated_reason === "solitaire" ? t("Not rated: a game alone is not rated.") : t("Not rated: a player has no account.");
    error.appendChild(document.createTextNode(" "));
    error.appendChild(h("a", { href: url }, t("Go to the table")));
    return;
  }
  window.location.href = url;
}

// --- game lists --------------------------------------------------------------------------------

/**
 * @param {GameListEntry} game
 * @param {GameStatus} status
 */
function gameItem(game, status) {
  const mine = Object.keys(loadTokens(game.id)).length > 0;
  const players = (game.players || []).map((name) => (name === null || name === undefined ? null : String(name)));
  const open = players.filter((p) => p === null).length;
  const names = players.filter((p) => p !== null).map((p) => shownName(String(p)));
  let action;
  if (mine && status !== "finished") action = t("Continue");
  else if (status === "open") action = t("Join");
  else if (status === "running") action = t("Watch");
  else action = t("Results");
  let detail = variantName(game.variant);
  const columns = game.options ? game.options.columns : undefined;
  if (typeof columns === "number") detail += ` · ${t("Columns: {n}", { n: columns })}`;
  const when = ago(game.updated_at || game.created_at);
  return h("li", { class: "game-item" },
    h("a", { class: "game-link", href: `/g/${encodeURIComponent(game.id)}` },
      h("span", { class: "game-main" },
        h("span", { class: "game-players" }, names.length ? names.join(" · ") : t("Nobody yet")),
        h("span", { class: "game-detail" }, detail, when ? ` · ${when}` : "", open ? ` · ${t("Open seats: {n}", { n: open })}` : "")),
      h("span", { class: `game-action ${status}` }, action)),
    status === "finished" ? h("a", { class: "game-replay", href: `/replay/g/${encodeURIComponent(game.id)}`, "aria-label": `${t("Watch the replay")}: ${names.join(", ")}` }, t("Replay")) : null);
}

/** @param {GameStatus} status */
async function loadList(status) {
  const box = $(`.game-list[data-status="${status}"]`);
  const result = await api("GET", `/api/games?status=${status}&limit=30`);
  const count = $(`#count-${status}`);
  const list = /** @type {GameList | null} */ (result.ok ? result.data : null);
  if (!list) {
    if (!box.childElementCount) box.appendChild(h("p", { class: "empty" }, errorText(result)));
    return;
  }
  const games = Array.isArray(list.games) ? list.games : [];
  count.textContent = games.length ? num(games.length) : "";
  clear(box);
  if (!games.length) {
    /** @type {Record<string, string>} */
    const empty = { open: t("No open games. Create one and invite a friend!"), running: t("Nobody is playing right now."), finished: t("No finished games yet.") };
    box.appendChild(h("p", { class: "empty" }, empty[status]));
    return;
  }
  box.appendChild(h("ul", { class: "games" }, games.map((game) => gameItem(game, status))));
}

function loadLists() {
  /** @type {GameStatus[]} */
  const statuses = ["open", "running", "finished"];
  return Promise.all(statuses.map(loadList));
}

function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')].filter((tab) => tab instanceof HTMLElement);
  /** @type {(tab: HTMLElement) => void} */
  const select = (tab) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute("aria-selected", on ? "true" : "false");
      other.tabIndex = on ? 0 : -1;
      $(`#${other.getAttribute("aria-controls")}`).hidden = !on;
    }
  };
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (press) => {
      if (press.key !== "ArrowRight" && press.key !== "ArrowLeft") return;
      const next = tabs[(index + (press.key === "ArrowRight" ? 1 : -1) + tabs.length) % tabs.length];
      select(next);
      next.focus();
      press.preventDefault();
    });
  });
}

// --- import ------------------------------------------------------------------------------------

/** The styled picker shows the name of the file chosen (the native input is hidden). */
function showChosenFile() {
  const files = $("#import-file", HTMLInputElement).files;
  const file = files && files[0];
  $("#import-file-name").textContent = file ? file.name : t("No file chosen");
  $("#import-error").textContent = "";
}

/** @param {Event} submit */
async function importRecord(submit) {
  submit.preventDefault();
  const error = $("#import-error");
  error.textContent = "";
  const files = $("#import-file", HTMLInputElement).files;
  const file = files && files[0];
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
  const stored = /** @type {RecordStored | null} */ (result.ok ? result.data : null);
  if (!stored || !stored.id) {
    error.textContent = errorText(result);
    return;
  }
  window.location.href = stored.url || `/replay/r/${encodeURIComponent(stored.id)}`;
}

// --- start -------------------------------------------------------------------------------------

/** Draw the page's seats and options in its words, with the server's variants and levels. */
async function setUp() {
  // First, before anything is awaited: a file chosen while the catalog and the variants load
  // would otherwise never show its name (a browser test chose one in that moment once).
  $("#import-file", HTMLInputElement).addEventListener("change", showChosenFile);
  await loadCatalog();
  for (const die of document.querySelectorAll(".hero-dice .die")) if (die instanceof HTMLElement) paintFace(die, Number(die.dataset.face), null);
  const name = savedName();
  // The page is drawn for the visitor's account (the session cookie): no request needed.
  me = $("#create-form").dataset.account || null;
  seats = [
    { kind: "human", name: me || name, level: "", account: Boolean(me) },
    // The bot's level is chosen once the ladder is known (defaultLevel), unless picked before.
    { kind: "bot", name: "", level: "" },
  ];
  $("#rated-on", HTMLInputElement).addEventListener("change", renderRated);
  renderSeats();
  renderOptions();
  const result = await api("GET", "/api/variants");
  if (result.ok && result.data) {
    const data = /** @type {VariantList} */ (result.data);
    variants = variantsByName(data);
    const found = data.levels;
    if (Array.isArray(found) && found.length) levels = found.map(String);
    if (Array.isArray(data.ladder)) ladder = data.ladder.map(String);
    if (data.level_ratings && typeof data.level_ratings === "object") levelRatings = data.level_ratings;
    for (const seat of seats) if (seat.kind === "bot" && !seat.level) seat.level = defaultLevel();
    renderSeats();
    renderOptions();
  }
  // A pool option (School's columns) changes the bots' ratings the picker shows.
  $("#options-body").addEventListener("input", renderSeats);
  for (const radio of document.querySelectorAll('input[name="variant"]')) {
    radio.addEventListener("change", () => {
      if (seats.length > maxSeats()) seats = seats.slice(0, maxSeats());
      renderOptions();
      renderSeats();
    });
  }
  const clockOn = $("#clock-on", HTMLInputElement);
  const clockSeconds = $("#clock-seconds", HTMLInputElement);
  clockOn.addEventListener("change", () => {
    clockOn.dataset.touched = "1";
    clockSeconds.disabled = !clockOn.checked;
  });
  clockSeconds.addEventListener("input", () => {
    clockSeconds.dataset.touched = "1";
  });
  $("#add-seat").addEventListener("click", addSeat);
  setupTabs();
}

async function start() {
  const ready = setUp();
  onSubmit($("#create-form", HTMLFormElement), ready, create);
  onSubmit($("#import-form", HTMLFormElement), ready, importRecord);
  await ready;
  await loadLists();
  setInterval(() => {
    if (document.visibilityState === "visible") loadLists();
  }, 15000);
}

start();

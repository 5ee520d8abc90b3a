// The end screen of the table: the ranking, the rematch (rematch.js), the record and the
// replay, the check of the dice, and the analysis of the game (GET /api/games/{id}/analysis),
// each asked once.
/** @import { Analysis, DailyChallenge, GameInfo, GameRatings, GameView, Player, Record as GameRecord } from "../../typings/protocol" */
import { $, api, clear, h, num, signed, t } from "./common.js";
import { codeOf } from "./accountforms.js";
import { closedAnalysisText, renderAnalysis, renderAnalysisMessage } from "./analysis.js";
import { loadVerification } from "./fair.js";
import { game, gameId, playerName } from "./game.js";
import { renderRematch } from "./rematch.js";
import { mySeats } from "./socket.js";

let analysisAsked = false;
let fairAsked = false;
let ratingsAsked = false;
let parAsked = false;
const RATINGS_TRIES = 30; // the results are written a moment after the end: ask again a while

/**
 * Show the end screen once the game is over (hide it before).
 * @param {GameView} state
 * @param {boolean} drawnBefore whether the page was drawn before (the end happened in front of
 *   the player: the end screen takes the focus)
 */
export function renderEnd(state, drawnBefore) {
  const box = $("#end");
  const finished = state.finished || game.status === "finished";
  $("#table-layout").classList.toggle("finished", finished);
  const wasHidden = box.hidden;
  box.hidden = !finished;
  if (!finished) return;
  const list = clear($("#ranking"));
  const order = state.ranking && state.ranking.length ? state.ranking : state.players.map((_, i) => i);
  for (const seat of order) {
    const player = state.players[seat];
    list.appendChild(
      h("li", { class: `rank place-${player.place} ${state.winner === seat ? "winner" : ""}` },
        h("span", { class: "rank-place", "aria-label": t("Place {n}", { n: player.place }) }, num(player.place)),
        h("span", { class: "rank-name" }, playerName(seat)),
        player.forfeited ? h("span", { class: "tag" }, t("out of time")) : null,
        h("span", { class: "rank-total" }, num(player.total))),
    );
  }
  const winner = state.winner;
  const daily = game.competition === "daily";
  if (state.players.length === 1) {
    // A game alone has no winner: its end is its score (the daily's, against par below).
    $("#end-title").textContent = t("Your score: {score}", { score: num(state.players[0].total) });
  } else if (winner === null || winner === undefined) {
    $("#end-title").textContent = t("A tie for first place!");
  } else {
    $("#end-title").textContent = mySeats().includes(winner) && mySeats().length === 1 ? t("You win!") : t("{name} wins!", { name: playerName(winner) });
  }
  const record = $("#record-link", HTMLAnchorElement);
  record.href = `/api/games/${encodeURIComponent(gameId)}/record`;
  record.setAttribute("download", `dicepoker-${gameId}.json`);
  $("#replay-link", HTMLAnchorElement).href = `/replay/g/${encodeURIComponent(gameId)}`;
  renderRematch();
  // The daily challenge is played once a day: no rematch.
  if (daily) $("#rematch-button").hidden = true;
  if (daily && !parAsked) {
    parAsked = true;
    loadPar(state);
  }
  if (!analysisAsked) loadAnalysis(state);
  if (!ratingsAsked) {
    ratingsAsked = true;
    loadRatings(RATINGS_TRIES);
  }
  if (!fairAsked) {
    fairAsked = true;
    loadVerification($("#fair-result"), `/api/games/${encodeURIComponent(gameId)}/verify`);
  }
  // Announce the end to keyboard and screen reader users when it happens in front of them.
  if (wasHidden && drawnBefore) box.focus({ preventScroll: false });
}

/**
 * The rating change of a rated game (GET /api/games/{id}/ratings), or why it was not rated.
 * @param {number} tries
 */
async function loadRatings(tries) {
  const box = $("#end-ratings");
  const result = await api("GET", `/api/games/${encodeURIComponent(gameId)}/ratings`);
  const ratings = /** @type {GameRatings | null} */ (result.ok ? result.data : null);
  if (!ratings || !ratings.rated) return;
  if (ratings.status === "pending") {
    if (tries > 0) window.setTimeout(() => loadRatings(tries - 1), 1000);
    return;
  }
  clear(box);
  box.hidden = false;
  if (ratings.status === "unrated") {
    box.textContent = ratings.reason === "anonymous_seat"
      ? t("Not rated: a player has no account.")
      : ratings.reason === "repeated_opponents"
        ? t("Not rated: these players have played their rated games together for today.")
        : ratings.reason === "abandoned"
          ? t("Not rated: the game was abandoned.")
          : t("Not rated: a game alone is not rated.");
    return;
  }
  box.appendChild(h("span", { class: "end-ratings-title" }, t("Rating")));
  const provisional = await provisionalNames(ratings);
  for (const change of ratings.changes) {
    const sign = change.change > 0 ? "+" : change.change < 0 ? "−" : "±";
    box.appendChild(
      h("span", { class: `rating-change ${change.change > 0 ? "up" : change.change < 0 ? "down" : ""}` },
        h("span", { class: "rating-name" }, change.name),
        ` ${num(change.before)} → ${num(change.after)} `,
        h("strong", {}, `(${sign}${num(Math.abs(change.change))})`),
        provisional.has(change.name) ? h("span", { class: "rating-provisional-note" }, ` ${t("provisional: moves much in the first games")}`) : null));
  }
}

/**
 * The names whose rating in the game's pool is still provisional (docs/ratings.md): their change
 * is large by design, and the end screen says so.
 * @param {GameRatings} ratings
 * @returns {Promise<Set<string>>}
 */
async function provisionalNames(ratings) {
  const names = new Set();
  await Promise.all(ratings.changes.map(async (change) => {
    const result = await api("GET", `/api/players/${encodeURIComponent(change.name)}`);
    const player = /** @type {Player | null} */ (result.ok ? result.data : null);
    const rating = player && player.ratings.find((r) => r.pool === change.pool);
    if (rating && rating.provisional) names.add(change.name);
  }));
  return names;
}

/**
 * A daily challenge's score against its par, "212 · par 201 · +11": the par of the challenge of
 * the game's day (UTC, when it was started), asked again while the expert works it out.
 * @param {GameView} state
 * @param {number} [tries]
 */
async function loadPar(state, tries = RATINGS_TRIES) {
  const box = $("#end-par");
  const score = state.players[0].total;
  const info = await api("GET", `/api/games/${encodeURIComponent(gameId)}`);
  const made = /** @type {GameInfo | null} */ (info.ok ? info.data : null);
  if (!made) return;
  const day = made.created_at.slice(0, 10);
  const result = await api("GET", `/api/daily/${encodeURIComponent(state.rules.variant)}?date=${day}`);
  const challenge = /** @type {DailyChallenge | null} */ (result.ok ? result.data : null);
  if (!challenge) return;
  box.hidden = false;
  if (challenge.par === null) {
    box.textContent = t("{score} · par: being worked out…", { score: num(score) });
    if (tries > 0) window.setTimeout(() => loadPar(state, tries - 1), 2000);
    return;
  }
  box.textContent = t("{score} · par {par} · {diff}", { score: num(score), par: num(challenge.par), diff: signed(score - challenge.par) });
}

/** @param {GameView} state */
async function loadAnalysis(state) {
  analysisAsked = true;
  const box = $("#analysis");
  box.hidden = false;
  if (game.competition === "daily" && !(game.fair && game.fair.seed)) {
    // A daily challenge whose seed is still withheld: its day is not over, and neither is the
    // closing of its analysis (docs/fair-play.md). Say when it opens rather than ask.
    renderAnalysisMessage(box, closedAnalysisText(true));
    return;
  }
  renderAnalysisMessage(box, t("Loading the analysis…"));
  const base = `/api/games/${encodeURIComponent(gameId)}`;
  const [result, record] = await Promise.all([api("GET", `${base}/analysis`), api("GET", `${base}/record`)]);
  const analysis = /** @type {Analysis | null} */ (result.ok ? result.data : null);
  if (result.status === 403 && codeOf(result) === "competitive") {
    // A daily challenge's analysis opens when its day is over: say when, rather than a link
    // that would be refused.
    renderAnalysisMessage(box, closedAnalysisText(game.competition === "daily"));
    return;
  }
  if (!analysis || !Array.isArray(analysis.players)) {
    renderAnalysisMessage(box, t("The analysis is not available."));
    return;
  }
  renderAnalysis(box, analysis, {
    variant: state.rules.variant,
    faceLabels: state.rules.face_labels,
    rules: state.rules,
    record: /** @type {GameRecord | null} */ (record.ok ? record.data : null),
    href: (turn, roll) => `/replay/g/${encodeURIComponent(gameId)}?turn=${turn}&roll=${roll}`,
  });
}

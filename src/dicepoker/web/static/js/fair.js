// Fair dice (docs/fair-dice.md): the commitment shown during play, and the check of a finished
// game or a record (GET /api/{games|records}/{id}/verify) on the end screen and in the replay.
/** @import { DiceCheck, ErrorResponse, FairDiceView } from "../../typings/protocol" */
import { api, clear, copyText, errorText, h, num, t, toast } from "./common.js";

/**
 * "3f2a9c…d17b": the first and last characters of a long hex value.
 * @param {string | null | undefined} value
 */
export function shortHex(value) {
  const text = String(value || "");
  return text.length > 14 ? `${text.slice(0, 8)}…${text.slice(-4)}` : text;
}

/**
 * The commitment chip of the table: short text, full value in its title, click copies it.
 * @param {HTMLElement} button
 * @param {FairDiceView | null} fairDice
 */
export function paintCommitment(button, fairDice) {
  const commitment = fairDice && fairDice.commitment;
  button.hidden = !commitment;
  if (!commitment) return;
  if (button.dataset.commitment === commitment) return;
  button.dataset.commitment = commitment;
  clear(button);
  button.appendChild(h("span", { class: "fair-label" }, t("Dice commitment")));
  button.appendChild(document.createTextNode(" "));
  button.appendChild(h("code", { class: "fair-hex" }, shortHex(commitment)));
  const explain = t("SHA-256 commitment to this game's secret dice seed. At the end the seed is revealed and every roll can be checked.");
  // The name is what the chip shows ("Dice commitment 3f2a9c…d17b"); the title, read as its
  // description, explains it and gives the whole value.
  button.title = `${explain}\n${commitment}`;
  if (!button.dataset.bound) {
    button.dataset.bound = "1";
    button.addEventListener("click", async () => {
      const value = button.dataset.commitment || "";
      toast((await copyText(value)) ? t("Commitment copied.") : value, "ok");
    });
  }
}

/**
 * @param {string} label
 * @param {string} value
 */
function hexLine(label, value) {
  return h("p", { class: "fair-line" },
    h("span", { class: "fair-key" }, `${label}: `),
    h("code", { class: "fair-hex full", title: value }, value));
}

/**
 * Draw the answer of …/verify (or nothing, when it could not be had) in `box`.
 * @param {HTMLElement} box
 * @param {DiceCheck | null} data
 */
export function renderVerification(box, data) {
  clear(box);
  box.hidden = false;
  if (!data) {
    box.appendChild(h("p", { class: "fair-head" }, t("The dice could not be verified")));
    return;
  }
  const ok = data.ok === true;
  box.classList.toggle("ok", ok);
  box.classList.toggle("bad", !ok);
  let head;
  let detail;
  if (ok) {
    head = t("Dice verified");
    detail = t("All {n} rolls match the commitment.", { n: num(data.rolls) });
  } else if (data.reason === "dice_differ") {
    head = t("The dice do not match the commitment");
    detail = t("Turn {turn}, roll {roll}: the dice differ from the commitment.", { turn: num(data.turn ?? 0), roll: num(data.roll ?? 0) });
  } else if (data.reason === "no_fair_dice") {
    head = t("Fair dice");
    detail = t("This game has no dice commitment.");
  } else {
    head = t("The dice could not be verified");
    detail = data.message || "";
  }
  box.appendChild(h("p", { class: "fair-head" },
    h("span", { class: "fair-mark", "aria-hidden": "true" }, ok ? "✓" : "✗"), " ", head));
  if (detail) box.appendChild(h("p", { class: "fair-detail" }, detail));
  if (data.seed) box.appendChild(hexLine(t("Seed"), data.seed));
  if (data.commitment) box.appendChild(hexLine(t("Commitment"), data.commitment));
  if (data.seed) {
    // The command is code: split the sentence around its placeholder.
    const [before, after = ""] = t("Check it yourself: download the record and run {command}.").split("{command}");
    box.appendChild(h("p", { class: "fair-how" }, before, h("code", null, "dicepoker verify FILE"), after));
  }
}

/**
 * Ask `url` (…/verify) and draw the answer; 409 (the game is not over) hides the box.
 * @param {HTMLElement} box
 * @param {string} url
 */
export async function loadVerification(box, url, { hideWithout = false } = {}) {
  box.hidden = false;
  clear(box);
  box.appendChild(h("p", { class: "fair-head" }, t("Checking the dice…")));
  const result = await api("GET", url);
  const refusal = /** @type {ErrorResponse | null} */ (result.ok ? null : result.data);
  const check = /** @type {DiceCheck | null} */ (result.ok ? result.data : null);
  const code = refusal && refusal.error && refusal.error.code;
  if (result.status === 409 && code === "seed_withheld") {
    // A daily challenge: its seed (the day's, everyone's dice) comes when the day is over.
    clear(box);
    box.appendChild(h("p", { class: "fair-head" }, t("Fair dice")));
    box.appendChild(h("p", { class: "fair-detail" }, errorText(result)));
    return;
  }
  if (result.status === 409 || result.status === 404 || (hideWithout && check && check.reason === "no_fair_dice")) {
    box.hidden = true;
    return;
  }
  renderVerification(box, check);
}

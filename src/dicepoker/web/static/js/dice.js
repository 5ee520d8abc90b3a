// Dice drawn with CSS: pips for the faces 1..6 of number dice, the labels (9 10 J Q K A) of dice
// whose faces are named otherwise. How many dice and which labels come from the rules.
import { h, range, t } from "./common.js";

/** @type {Record<number, number[]>} */
const PIPS = {
  1: [5],
  2: [3, 7],
  3: [3, 5, 7],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

/**
 * The label of face `value` (1..faces): "5", or "K" for poker dice.
 * @param {number} value
 * @param {string[] | null | undefined} faceLabels
 */
export function faceLabel(value, faceLabels) {
  if (!value) return "";
  return (faceLabels && faceLabels[value - 1]) || String(value);
}

/**
 * Whether the faces are named by labels of their own rather than by their numbers.
 * @param {string[] | null | undefined} faceLabels
 */
function labelled(faceLabels) {
  return Array.isArray(faceLabels) && faceLabels.some((label, index) => label !== String(index + 1));
}

/**
 * Fill `element` (a .die) with the face `value` (0: no face yet).
 * @param {HTMLElement} element
 * @param {number} value
 * @param {string[] | null | undefined} faceLabels
 */
export function paintFace(element, value, faceLabels) {
  const pips = PIPS[value];
  const cards = labelled(faceLabels) || (Boolean(value) && !pips);
  element.dataset.face = String(value || 0);
  element.classList.toggle("blank", !value);
  element.classList.toggle("card", cards);
  const face = element.querySelector(".face") || element.appendChild(h("span", { class: "face", "aria-hidden": "true" }));
  face.textContent = "";
  if (!value) return;
  if (cards) {
    const label = faceLabel(value, faceLabels);
    face.appendChild(h("span", { class: `card-label card-${label.toLowerCase()}` }, label));
    return;
  }
  for (let spot = 1; spot <= 9; spot += 1) {
    face.appendChild(h("span", { class: pips.includes(spot) ? `pip on p${spot}` : `pip p${spot}` }));
  }
}

/**
 * A small static die for labels (face rows, the lobby).
 * @param {number} value
 * @param {string[] | null | undefined} faceLabels
 */
export function miniDie(value, faceLabels, extraClass = "") {
  const element = h("span", { class: `die mini ${extraClass}`.trim(), "aria-hidden": "true" });
  paintFace(element, value, faceLabels);
  return element;
}

/**
 * The accessible name of a die: "die 1: 5, held".
 * @param {number} index
 * @param {number} value
 * @param {string[] | null | undefined} faceLabels
 * @param {boolean} held
 */
export function dieName(index, value, faceLabels, held) {
  const name = value
    ? t("die {n}: {value}", { n: index + 1, value: faceLabel(value, faceLabels) })
    : t("die {n}: not rolled yet", { n: index + 1 });
  return held ? `${name}, ${t("held")}` : name;
}

/**
 * What the tray shows: `count` dice (the rules' number), their `values` (or none yet), the
 * positions `held`, whether they react to taps, and the positions that just rolled (animated,
 * the new value showing all along).
 * @typedef {object} TrayPaint
 * @property {number} count
 * @property {number[]} values
 * @property {string[]} faceLabels
 * @property {Set<number>} held
 * @property {boolean} canHold
 * @property {Set<number> | null} rolled
 */

/** The dice of the tray, built for the rules' number of dice and repainted for each state. */
export class DiceTray {
  /**
   * @param {HTMLElement} root
   * @param {((index: number) => void) | null} onToggle
   */
  constructor(root, onToggle) {
    this.root = root;
    this.onToggle = onToggle;
    /** @type {HTMLButtonElement[]} */
    this.dice = [];
  }

  /** Build the buttons of `count` dice (once, or again if the number changes). */
  build(/** @type {number} */ count) {
    if (this.dice.length === count) return;
    for (const die of this.dice) die.remove();
    this.dice = range(count).map((index) => {
      const die = h("button", {
        type: "button",
        class: "die",
        // The key that holds it, drawn by the CSS (.die::before): not text in its name.
        dataset: { index: String(index), key: String(index + 1) },
        onclick: () => this.onToggle && this.onToggle(index),
      });
      die.appendChild(h("span", { class: "face", "aria-hidden": "true" }));
      this.root.appendChild(die);
      return die;
    });
  }

  /** @param {TrayPaint} paint */
  paint({ count, values, faceLabels, held, canHold, rolled }) {
    this.build(count);
    /** @type {HTMLButtonElement[]} */
    const tumbling = [];
    this.dice.forEach((die, index) => {
      const value = values && values.length === count ? values[index] : 0;
      paintFace(die, value, faceLabels);
      const isHeld = Boolean(value) && held.has(index);
      die.classList.toggle("held", isHeld);
      die.classList.toggle("interactive", Boolean(canHold && value));
      die.setAttribute("aria-label", dieName(index, value, faceLabels, isHeld));
      if (canHold && value) {
        die.setAttribute("aria-pressed", isHeld ? "true" : "false");
        die.removeAttribute("aria-disabled");
      } else {
        die.removeAttribute("aria-pressed");
        die.setAttribute("aria-disabled", "true");
      }
      if (rolled && rolled.has(index) && value) {
        die.classList.remove("rolling");
        die.style.setProperty("--spin", `${(index % 2 ? -1 : 1) * (300 + index * 40)}deg`);
        tumbling.push(die);
      }
    });
    if (!tumbling.length) return;
    void this.root.offsetWidth; // restart the animation: one reflow for all the dice that rolled
    for (const die of tumbling) die.classList.add("rolling");
  }
}

// Dice drawn with CSS: pips for 1..6, card faces (9 10 J Q K A) for poker dice.
import { h, t } from "./common.js";

const PIPS = {
  1: [5],
  2: [3, 7],
  3: [3, 5, 7],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

/** The label of face `value` (1..6): "5", or "K" for poker dice. */
export function faceLabel(value, faceLabels) {
  if (!value) return "";
  return (faceLabels && faceLabels[value - 1]) || String(value);
}

/** Fill `element` (a .die) with the face `value` (0: no face yet). */
export function paintFace(element, value, faceLabels) {
  const cards = Array.isArray(faceLabels) && faceLabels.length === 6 && faceLabels[0] !== "1";
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
    face.appendChild(h("span", { class: PIPS[value].includes(spot) ? `pip on p${spot}` : `pip p${spot}` }));
  }
}

/** A small static die for labels (school rows, the lobby). */
export function miniDie(value, faceLabels, extraClass = "") {
  const element = h("span", { class: `die mini ${extraClass}`.trim(), "aria-hidden": "true" });
  paintFace(element, value, faceLabels);
  return element;
}

/** The accessible name of a die: "die 1: 5, held". */
export function dieName(index, value, faceLabels, held) {
  const name = value
    ? t("die {n}: {value}", { n: index + 1, value: faceLabel(value, faceLabels) })
    : t("die {n}: not rolled yet", { n: index + 1 });
  return held ? `${name}, ${t("held")}` : name;
}

/** The five dice of the tray, built once and repainted for each state. */
export class DiceTray {
  constructor(root, onToggle) {
    this.root = root;
    this.onToggle = onToggle;
    this.dice = [];
    for (let index = 0; index < 5; index += 1) {
      const die = h("button", {
        type: "button",
        class: "die",
        dataset: { index: String(index) },
        onclick: () => this.onToggle && this.onToggle(index),
      });
      die.appendChild(h("span", { class: "face", "aria-hidden": "true" }));
      die.appendChild(h("span", { class: "die-key", "aria-hidden": "true" }, String(index + 1)));
      this.dice.push(die);
      root.appendChild(die);
    }
  }

  /**
   * values: the five dice (or empty), held: Set of positions, canHold: dice react to taps,
   * rolled: positions that just rolled (animated, the new value showing all along).
   */
  paint({ values, faceLabels, held, canHold, rolled }) {
    this.dice.forEach((die, index) => {
      const value = values && values.length === 5 ? values[index] : 0;
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
        void die.offsetWidth; // restart the animation
        die.classList.add("rolling");
        die.style.setProperty("--spin", `${(index % 2 ? -1 : 1) * (300 + index * 40)}deg`);
      }
    });
  }
}

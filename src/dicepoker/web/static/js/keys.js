// The table's keys: 1..N hold the dice (N: the rules' number of dice), R rolls (Space too, when
// no control has the focus), the arrows walk the cells that may be filled, Enter fills one, H
// turns the hint on and off (in a game without hints it only says why). Space and Enter on a focused control (a die, a button, a cell)
// press that control, as everywhere: they never roll by accident.
import { myTurn, roll, toggle } from "./actions.js";
import { hintsOff, toggleHint } from "./advice.js";
import { diceCount } from "./game.js";
import { mySeats } from "./socket.js";

/** The buttons of the cells that may be filled now, in page order. */
function moves() {
  return [...document.querySelectorAll("#main-sheet button.move")].filter((el) => el instanceof HTMLElement);
}

/** The first cell that may be filled now. */
export function firstMove() {
  return moves()[0] || null;
}

/**
 * The key of a die: "1" for the first, up to the number of dice (none beyond 9).
 * @param {string} key
 */
function dieOfKey(key) {
  if (!/^[1-9]$/.test(key)) return null;
  const index = Number(key) - 1;
  return index < diceCount() ? index : null;
}

/**
 * Whether `target` is a control that Space and Enter press (a button, a link, a summary...).
 * @param {HTMLElement | null} target
 */
function onControl(target) {
  return Boolean(target && target !== document.body && target.closest("button, a[href], summary, [role='button'], [role='tab']"));
}

/** @param {KeyboardEvent} press */
export function onKey(press) {
  if (press.altKey || press.ctrlKey || press.metaKey) return;
  const target = press.target instanceof HTMLElement ? press.target : null;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable)) return;
  const key = press.key;
  if (key === "h" || key === "H") {
    if (mySeats().length || hintsOff()) {
      toggleHint();
      press.preventDefault();
    }
    return;
  }
  const die = dieOfKey(key);
  if (die !== null) {
    toggle(die);
    press.preventDefault();
    return;
  }
  if (key === "r" || key === "R" || key === " " || key === "Spacebar") {
    if ((key === " " || key === "Spacebar") && onControl(target)) return; // the control's own press
    if (myTurn()) {
      roll();
      press.preventDefault();
    }
    return;
  }
  if (key === "ArrowUp" || key === "ArrowDown" || key === "ArrowLeft" || key === "ArrowRight") {
    const list = moves();
    if (!list.length) return;
    press.preventDefault();
    const active = document.activeElement;
    const index = active instanceof HTMLElement ? list.indexOf(active) : -1;
    if (index < 0) {
      list[key === "ArrowUp" || key === "ArrowLeft" ? list.length - 1 : 0].focus();
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      list[(index + (key === "ArrowRight" ? 1 : -1) + list.length) % list.length].focus();
      return;
    }
    // Up and down jump to the previous or next row that has a move.
    /** @type {(el: Element) => Element | null} */
    const rowOf = (el) => el.closest("tr");
    const here = rowOf(list[index]);
    const step = key === "ArrowDown" ? 1 : -1;
    let i = index;
    for (let n = 0; n < list.length; n += 1) {
      i = (i + step + list.length) % list.length;
      if (rowOf(list[i]) !== here) {
        // the first move of that row
        const row = rowOf(list[i]);
        const first = list.find((el) => rowOf(el) === row) || list[i];
        first.focus();
        first.scrollIntoView({ block: "nearest" });
        return;
      }
    }
  }
  if (key === "Enter" && target === document.body) {
    const first = firstMove();
    if (first) {
      first.focus();
      press.preventDefault();
    }
  }
}

// A cue on every box that scrolls sideways (the analysis' tables, the rules' and puzzles' tables,
// the daily board, a wide sheet, the strip of stars on a phone): its edge fades where more of it lies beyond, so that on a
// phone a column off screen is seen to be there (the classes cue-left and cue-right, drawn by
// base.css). Boxes drawn later by a page script are found when the page changes.

const SCROLLERS = ".an-table-wrap, .table-wrap, .puzzle-table-wrap, .daily-board, .sheet-scroll, .star-board";

/** @param {Element} box */
function cue(box) {
  const more = box.scrollWidth - box.clientWidth;
  const left = box.scrollLeft;
  box.classList.toggle("cue-right", more > 1 && left < more - 1);
  box.classList.toggle("cue-left", more > 1 && left > 1);
}

let pending = false;
/** Look at every scrolling box again, once per frame at most. */
function cueAll() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    for (const box of document.querySelectorAll(SCROLLERS)) cue(box);
  });
}

document.addEventListener("scroll", (event) => {
  if (event.target instanceof Element && event.target.matches(SCROLLERS)) cue(event.target);
}, { capture: true, passive: true });
window.addEventListener("resize", cueAll);
new MutationObserver(cueAll).observe(document.documentElement, { childList: true, subtree: true });
cueAll();

// The waiting room of an open game: its link to share, its seats, and the form that takes one.
/** @import { SeatTaken } from "../../typings/protocol" */
import { $, api, clear, copyText, errorText, h, levelName, num, rememberName, saveToken, savedName, t, toast } from "./common.js";
import { game, gameId } from "./game.js";
import { mySeats, openConnections } from "./socket.js";

/** The waiting room while seats are open (the table is hidden until the game starts). */
export function renderWaiting() {
  const box = $("#waiting");
  const open = game.status === "open";
  box.hidden = !open;
  $("#table-layout").hidden = open;
  if (!open) return;
  const url = `${location.origin}/g/${gameId}`;
  $("#share-url", HTMLInputElement).value = url;
  const list = clear($("#waiting-seats"));
  const mine = mySeats();
  for (const seat of game.seats) {
    const taken = seat.taken;
    list.appendChild(
      h("li", { class: `wseat ${taken ? "taken" : "free"}` },
        h("span", { class: "wseat-n" }, num(seat.seat + 1)),
        h("span", { class: "wseat-name" }, taken ? seat.name || "" : t("Open seat")),
        seat.kind === "bot" ? h("span", { class: "tag" }, `${t("Bot")} · ${levelName(seat.level)}`) : null,
        mine.includes(seat.seat) ? h("span", { class: "tag you" }, t("you")) : null),
    );
  }
  const free = game.seats.filter((s) => s.kind === "human" && !s.taken);
  const form = $("#join-form");
  form.hidden = free.length === 0 || mine.length > 0;
  const select = $("#join-seat", HTMLSelectElement);
  const before = select.value;
  clear(select);
  for (const seat of free) select.appendChild(h("option", { value: String(seat.seat) }, t("Seat {n}", { n: seat.seat + 1 })));
  if (free.some((s) => String(s.seat) === before)) select.value = before;
  const name = $("#join-name", HTMLInputElement);
  if (!name.value) name.value = savedName();
  $("#watch-hint").hidden = mine.length > 0;
}

/**
 * Take the chosen seat under the name written (the form's submit).
 * @param {Event} submit
 */
export async function join(submit) {
  submit.preventDefault();
  const nameField = $("#join-name", HTMLInputElement);
  const name = nameField.value.trim();
  const seat = Number($("#join-seat", HTMLSelectElement).value);
  const error = $("#join-error");
  error.textContent = "";
  if (!name) {
    error.textContent = t("Please write your name.");
    nameField.focus();
    return;
  }
  const result = await api("POST", `/api/games/${encodeURIComponent(gameId)}/join`, { seat, name });
  const taken = /** @type {SeatTaken | null} */ (result.ok ? result.data : null);
  if (!taken || !taken.token) {
    error.textContent = errorText(result);
    return;
  }
  rememberName(name);
  saveToken(gameId, taken.seat, taken.token);
  openConnections();
  toast(t("You took seat {n}.", { n: taken.seat + 1 }), "ok");
}

/** Share the table's link (the phone's share sheet) or copy it. */
export async function share() {
  const url = `${location.origin}/g/${gameId}`;
  if ("share" in navigator && matchMedia("(pointer: coarse)").matches) {
    try {
      await navigator.share({ title: t("site.name"), url });
      return;
    } catch {
      /* fall back to copying */
    }
  }
  toast((await copyText(url)) ? t("Link copied.") : url, "ok");
}

// The pace of the table: the turn counter ("Turn 7 of 15 · Ana"), and what tells a player that
// their turn has come while they look elsewhere: the tab's title, an optional short beep
// (WebAudio, off by default) and a notification where the player allowed them. Both switches
// are remembered in this browser (localStorage).
/** @import { GameView } from "../../typings/protocol" */
import { $, t, toast } from "./common.js";
import { myTurn } from "./actions.js";
import { game, gameId, playerName } from "./game.js";
import { turnCount, turnLabel } from "./turns.js";

const SOUND_KEY = "dicepoker:sound";
const NOTIFY_KEY = "dicepoker:notify";

/** The key of the turn this page last announced (so a turn is announced once). */
let announced = "";
/** Whether a position was drawn before (a page opened on the player's turn does not beep). */
let drawnBefore = false;
/** @type {AudioContext | null} */
let audio = null;

/** @param {string} key */
function remembered(key) {
  try {
    return localStorage.getItem(key) === "on";
  } catch {
    return false;
  }
}

/**
 * @param {string} key
 * @param {boolean} on
 */
function remember(key, on) {
  try {
    localStorage.setItem(key, on ? "on" : "off");
  } catch {
    /* private mode: the switch holds for this page only */
  }
}

/**
 * Draw the turn counter and tell the player when their turn begins (after the page's title
 * was set by the table: the title gets its mark while it is the player's turn, and loses it
 * when the turn is over).
 * @param {GameView} state
 */
export function renderPace(state) {
  const box = $("#turn-count");
  const count = game.status === "running" ? turnCount(state) : null;
  box.hidden = !count;
  if (count) {
    box.textContent = turnLabel({ round: count.round, rounds: count.rounds, name: playerName(count.seat) });
  }
  const mine = myTurn();
  if (mine) document.title = `● ${t("Your turn")} — ${document.title}`;
  const key = mine && state.turn ? `${game.turnKey}` : "";
  if (key && key !== announced && drawnBefore) announce();
  announced = key;
  drawnBefore = true;
}

/** The player's turn has begun: a beep and a notification, where they asked for them. */
function announce() {
  if (remembered(SOUND_KEY)) beep();
  if (remembered(NOTIFY_KEY) && document.visibilityState !== "visible" && "Notification" in window && Notification.permission === "granted") {
    try {
      const notice = new Notification(t("Your turn"), { body: t("It is your turn at table {id}.", { id: gameId }), tag: `dicepoker-${gameId}` });
      notice.addEventListener("click", () => {
        window.focus();
        notice.close();
      });
    } catch {
      /* a browser that only notifies from a service worker: the title still says it */
    }
  }
}

/** A short, soft two-tone beep (no sound file: WebAudio). */
function beep() {
  const context = audioContext();
  if (!context) return;
  const now = context.currentTime;
  const gain = context.createGain();
  gain.gain.setValueAtTime(0.0001, now);
  gain.gain.exponentialRampToValueAtTime(0.15, now + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.35);
  gain.connect(context.destination);
  [660, 880].forEach((frequency, index) => {
    const tone = context.createOscillator();
    tone.type = "sine";
    tone.frequency.value = frequency;
    tone.connect(gain);
    tone.start(now + index * 0.12);
    tone.stop(now + 0.35);
  });
}

/** The page's audio context, made (or resumed) once the player switched the sound on. */
function audioContext() {
  if (!("AudioContext" in window)) return null;
  if (!audio) audio = new AudioContext();
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

/**
 * @param {HTMLButtonElement} button
 * @param {boolean} on
 */
function paintSwitch(button, on) {
  button.setAttribute("aria-pressed", on ? "true" : "false");
}

/** Wire the two switches (sound; notifications, asked for only when the player presses it). */
export function setUpPace() {
  const sound = $("#sound-switch", HTMLButtonElement);
  paintSwitch(sound, remembered(SOUND_KEY));
  sound.addEventListener("click", () => {
    const on = !remembered(SOUND_KEY);
    remember(SOUND_KEY, on);
    paintSwitch(sound, on);
    if (on) beep(); // made within the click: the browser lets the page play sound from now on
  });
  const notify = $("#notify-switch", HTMLButtonElement);
  notify.hidden = !("Notification" in window);
  if (notify.hidden) return;
  paintSwitch(notify, remembered(NOTIFY_KEY) && Notification.permission === "granted");
  notify.addEventListener("click", async () => {
    if (remembered(NOTIFY_KEY) && Notification.permission === "granted") {
      remember(NOTIFY_KEY, false);
      paintSwitch(notify, false);
      return;
    }
    const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    const on = permission === "granted";
    remember(NOTIFY_KEY, on);
    paintSwitch(notify, on);
    if (!on) toast(t("Notifications are blocked for this site in your browser."), "error");
  });
}

// What the account pages (sign up, log in, your account) share: reading a form's fields, sending
// it, and saying a refusal in the page's words beside the field it is about.
/** @import { ErrorResponse } from "../../typings/protocol" */
import { $, errorText, num, t } from "./common.js";

/**
 * The form `selector` finds, with its named controls.
 * @param {string} selector
 */
export function form(selector) {
  return $(selector, HTMLFormElement);
}

/**
 * The value of the form's input `name`.
 * @param {HTMLFormElement} owner
 * @param {string} name
 */
export function field(owner, name) {
  const input = owner.elements.namedItem(name);
  if (!(input instanceof HTMLInputElement)) throw new Error(`the form has no input ${name}`);
  return input;
}

/**
 * Where to go once logged in: the form's `data-next`, if it is a path of this site.
 * @param {HTMLFormElement} owner
 */
export function nextPath(owner) {
  const next = owner.dataset.next || "/";
  return /^\/(?![/\\])[A-Za-z0-9/_.~-]*$/.test(next) ? next : "/";
}

/**
 * The words of a refused request: a 429 says how long to wait, any other code the catalog's
 * words for it (error.{code}).
 * @param {ApiResult<unknown>} result
 */
export function refusalWords(result) {
  if (result.status === 429 && result.retryAfter) {
    return t("Too many attempts: try again in {seconds} s.", { seconds: num(result.retryAfter) });
  }
  return errorText(result);
}

/**
 * The refusal's code, if the server sent one.
 * @param {ApiResult<unknown>} result
 */
export function codeOf(result) {
  const data = /** @type {ErrorResponse | null} */ (result.data);
  return (data && data.error && data.error.code) || "";
}

/** Clear the marks of an earlier error on the form's inputs. */
export function clearErrors(/** @type {HTMLFormElement} */ owner, /** @type {HTMLElement} */ box) {
  box.textContent = "";
  for (const input of owner.querySelectorAll("input[aria-invalid]")) input.removeAttribute("aria-invalid");
}

/**
 * Say why: the text in the form's error box, the field it is about marked invalid and focused.
 * @param {HTMLFormElement} owner
 * @param {HTMLElement} box
 * @param {string} text
 * @param {HTMLInputElement | null} input
 */
export function showError(owner, box, text, input) {
  clearErrors(owner, box);
  box.textContent = text;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}

/**
 * Show a refused request, with the input it is about (by its code) marked and focused.
 * @param {HTMLFormElement} owner
 * @param {HTMLElement} box
 * @param {ApiResult<unknown>} result
 * @param {Record<string, string>} fields the name of the form's input each code is about
 */
export function showRefusal(owner, box, result, fields) {
  const name = fields[codeOf(result)] || "";
  const input = name ? owner.elements.namedItem(name) : null;
  showError(owner, box, refusalWords(result), input instanceof HTMLInputElement ? input : null);
}

/**
 * Run `send` once at a time: the button is disabled (and says so) while it runs.
 * @param {HTMLButtonElement} button
 * @param {() => Promise<void>} send
 */
export async function busy(button, send) {
  if (button.disabled) return;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    await send();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

// The account page (/account): log out (DELETE /api/session), change the password (POST
// /api/me/password: the current one asked again) and delete the account (DELETE /api/me: the
// password asked again, then a question to confirm).
import { $, api, flash, loadCatalog, onSubmit, t } from "./common.js";
import { busy, clearErrors, field, form, refusalWords, showError, showRefusal } from "./accountforms.js";

const passwordForm = form("#password-form");
const deleteForm = form("#delete-form");

async function logOut() {
  const error = $("#logout-error");
  error.textContent = "";
  const result = await api("DELETE", "/api/session");
  if (!result.ok) {
    error.textContent = refusalWords(result);
    return;
  }
  flash(t("You are logged out."));
  window.location.assign("/");
}

/** @param {SubmitEvent} submit */
async function changePassword(submit) {
  submit.preventDefault();
  const error = $("#password-error");
  const done = $("#password-done");
  done.textContent = "";
  clearErrors(passwordForm, error);
  const current = field(passwordForm, "password");
  const fresh = field(passwordForm, "new_password");
  const again = field(passwordForm, "again");
  if (fresh.value !== again.value) {
    showError(passwordForm, error, t("The two passwords are not the same."), again);
    return;
  }
  const result = await api("POST", "/api/me/password", { password: current.value, new_password: fresh.value });
  if (!result.ok) {
    // A wrong password is the current one; a password that is too short or long, the new one.
    showRefusal(passwordForm, error, result, { bad_login: "password", bad_password: "new_password" });
    return;
  }
  passwordForm.reset();
  done.textContent = t("Your password is changed.");
}

/** Ask before deleting: the question and its two answers appear under the button. */
function askToDelete(/** @type {SubmitEvent} */ submit) {
  submit.preventDefault();
  const error = $("#delete-error");
  clearErrors(deleteForm, error);
  const password = field(deleteForm, "password");
  if (!password.value) {
    showError(deleteForm, error, t("Write your password to delete the account."), password);
    return;
  }
  showQuestion(true);
  $("#delete-no", HTMLButtonElement).focus();
}

/**
 * The question instead of the delete button, or the button again.
 * @param {boolean} asking
 */
function showQuestion(asking) {
  $("#delete-confirm").hidden = !asking;
  $("#delete-actions").hidden = asking;
}

function keepAccount() {
  showQuestion(false);
  $("#delete-button", HTMLButtonElement).focus();
}

async function deleteAccount() {
  const error = $("#delete-error");
  const password = field(deleteForm, "password");
  const result = await api("DELETE", "/api/me", { password: password.value });
  if (!result.ok) {
    showQuestion(false);
    showRefusal(deleteForm, error, result, { bad_login: "password" });
    return;
  }
  flash(t("Your account is deleted."));
  window.location.assign("/");
}

function start() {
  const ready = loadCatalog();
  const change = $("#password-button", HTMLButtonElement);
  onSubmit(passwordForm, ready, (submit) => busy(change, () => changePassword(submit)));
  onSubmit(deleteForm, ready, askToDelete);
  const logout = $("#logout-button", HTMLButtonElement);
  logout.addEventListener("click", () => ready.then(() => busy(logout, logOut)));
  $("#delete-no").addEventListener("click", keepAccount);
  const yes = $("#delete-yes", HTMLButtonElement);
  yes.addEventListener("click", () => busy(yes, deleteAccount));
}

start();

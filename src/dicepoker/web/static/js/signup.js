// The sign-up page (/signup): a name and a password (twice), POST /api/accounts; the new
// account is logged in at once, and the page goes where the visitor came from.
/** @import { Me } from "../../typings/protocol" */
import { $, api, flash, loadCatalog, onSubmit, t } from "./common.js";
import { busy, clearErrors, field, form, nextPath, showError, showRefusal } from "./accountforms.js";

const signUp = form("#signup-form");
const error = $("#signup-error");

/** @param {SubmitEvent} submit */
async function send(submit) {
  submit.preventDefault();
  clearErrors(signUp, error);
  const name = field(signUp, "name");
  const password = field(signUp, "password");
  const again = field(signUp, "again");
  if (!name.value.trim()) {
    showError(signUp, error, t("error.bad_name"), name);
    return;
  }
  if (password.value !== again.value) {
    showError(signUp, error, t("The two passwords are not the same."), again);
    return;
  }
  const result = await api("POST", "/api/accounts", { name: name.value.trim(), password: password.value });
  if (!result.ok) {
    showRefusal(signUp, error, result, { bad_name: "name", name_taken: "name", bad_password: "password" });
    return;
  }
  const me = /** @type {Me} */ (result.data);
  flash(t("Welcome, {name}! Your account is ready.", { name: me.name }));
  window.location.assign(nextPath(signUp));
}

const button = $("#signup-button", HTMLButtonElement);
onSubmit(signUp, loadCatalog(), (submit) => busy(button, () => send(submit)));

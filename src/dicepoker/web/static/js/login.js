// The log-in page (/login): POST /api/session, then back where the visitor came from (`next`).
/** @import { Me } from "../../typings/protocol" */
import { $, api, flash, loadCatalog, onSubmit, t } from "./common.js";
import { busy, clearErrors, codeOf, field, form, nextPath, showError, showRefusal } from "./accountforms.js";

const logIn = form("#login-form");
const error = $("#login-error");

/** @param {SubmitEvent} submit */
async function send(submit) {
  submit.preventDefault();
  clearErrors(logIn, error);
  const name = field(logIn, "name");
  const password = field(logIn, "password");
  if (!name.value.trim()) {
    showError(logIn, error, t("error.bad_login"), name);
    return;
  }
  const result = await api("POST", "/api/session", { name: name.value.trim(), password: password.value });
  if (!result.ok) {
    showRefusal(logIn, error, result, { bad_login: "password", account_disabled: "name" });
    if (codeOf(result) === "bad_login") password.select();
    return;
  }
  const me = /** @type {Me} */ (result.data);
  flash(t("Welcome back, {name}!", { name: me.name }));
  window.location.assign(nextPath(logIn));
}

const button = $("#login-button", HTMLButtonElement);
onSubmit(logIn, loadCatalog(), (submit) => busy(button, () => send(submit)));

// Holds the forms the page script sends (those with no `action`) until the script has wired them
// (`onSubmit` in common.js marks a form data-wired). A visitor quick enough to send one while the
// page still loads would otherwise have the browser send it itself: a GET to the same page that
// puts the fields, a password too, in the address. A classic script in <head>, so it is in place
// before any form is drawn; `onSubmit` sends a held form again once it is wired.
document.addEventListener(
  "submit",
  (submit) => {
    const owner = submit.target;
    if (!(owner instanceof HTMLFormElement) || owner.hasAttribute("action") || owner.dataset.wired) return;
    submit.preventDefault();
    owner.dataset.held = "1";
  },
  true,
);

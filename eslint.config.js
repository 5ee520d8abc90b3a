// ESLint for the page scripts (src/dicepoker/web/static/js): the recommended rules, no unused
// variables, no implicit or confusing globals. `bash scripts/check-js` runs it with TypeScript.
import js from "@eslint/js";
import globals from "globals";

/** Browser globals that are easy to use by mistake for a local of the same name. */
const CONFUSING = ["event", "name", "status", "length", "closed", "open", "origin", "parent", "top", "self", "close", "find", "print"];

export default [
  { ignores: ["node_modules/", ".venv/"] },
  { files: ["src/dicepoker/web/static/js/**/*.js"], ...js.configs.recommended },
  {
    files: ["src/dicepoker/web/static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-unused-vars": ["error", { args: "all", argsIgnorePattern: "^_", caughtErrors: "all", caughtErrorsIgnorePattern: "^_" }],
      "no-implicit-globals": "error",
      "no-restricted-globals": ["error", ...CONFUSING],
      "no-undef": "error",
      "no-var": "error",
      "prefer-const": "error",
      "eqeqeq": ["error", "always"],
      "no-shadow": "error",
      "no-use-before-define": ["error", { functions: false, classes: true, variables: true }],
    },
  },
];

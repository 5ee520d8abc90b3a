// Types of the page scripts' own helpers (for TypeScript's check only; no page loads this file).

/** A child of `h()`: text, a node, nothing (null, undefined, false), or a list of those. */
type Child = string | number | Node | null | undefined | false | readonly Child[];

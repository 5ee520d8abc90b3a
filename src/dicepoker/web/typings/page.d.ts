// Types of the page scripts' own helpers (for TypeScript's check only; no page loads this file).
// The wire contract's types are generated (protocol.d.ts): none is written here.

/** A child of `h()`: text, a node, nothing (null, undefined, false), or a list of those. */
type Child = string | number | Node | null | undefined | false | readonly Child[];

/** What `api()` answers: `data` is the JSON body, whatever the status (an error's body is the
 * contract's `ErrorResponse`). */
interface ApiResult<T = unknown> {
  ok: boolean;
  status: number;
  data: T | null;
  /** Seconds the server asks to wait (Retry-After, with a 429); 0 when it says none. */
  retryAfter?: number;
}

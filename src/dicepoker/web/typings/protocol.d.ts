// The data the page scripts read, as the server sends it (docs/api.md: the view, the WebSocket
// messages, the REST answers). Types for TypeScript's check of the scripts only (`bash
// scripts/check-js`); no page loads this file. Global declarations: a script's JSDoc names them
// directly (`@param {RulesView} rules`).

// --- the rules of a game (`rules_view`) ---------------------------------------------------------

/** A row of the sheet as the rules define it. */
interface RowRule {
  id: string;
  section: string;
  school: boolean;
  star: boolean;
  /** The face a face row counts (1..faces), else null. */
  face: number | null;
  strike: boolean;
  doubles: boolean;
}

interface SectionRule {
  id: string;
  /** A message id of the catalogs. */
  title: string;
}

interface ClockPolicy {
  /** The variant's own clock option, if it has one. */
  option: string | null;
  /** Its default for games created online. */
  online_default: number | null;
  /** What running out of time does. */
  on_timeout: "lose" | "autoplay";
}

/** Everything an interface needs to lay out and play a game of these rules. */
interface RulesView {
  variant: string;
  options: Record<string, boolean | number>;
  min_players: number;
  max_players: number;
  /** The number of dice. */
  dice: number;
  /** Faces per die: values 1..faces. */
  faces: number;
  face_labels: string[];
  rolls_per_turn: number;
  columns: number;
  rows: RowRule[];
  sections: SectionRule[];
  stars: boolean;
  column_stars: boolean;
  reserve: boolean;
  zero_penalty: number | null;
  upper_bonus: { threshold: number; points: number } | null;
  yahtzee_bonus: boolean;
  /** Whether auto-play (the "auto" intent) is offered. */
  autoplay: boolean;
  clock: ClockPolicy;
  turn_seconds: number;
}

// --- the view of a position (`state`) -----------------------------------------------------------

interface CellView {
  mark: "score" | "closed" | "strike" | "zero";
  points: number;
  doubled?: boolean;
  joker?: boolean;
  used_reserve?: number;
  note?: number;
  note_struck?: boolean;
}

interface StarView {
  status: "earned" | "open" | "struck";
  value: number | null;
}

interface SheetRowView {
  id: string;
  section: string;
  school: boolean;
  cells: (CellView | null)[];
  star: StarView | null;
}

interface Breakdown {
  cells: number;
  stars: number;
  upper_bonus: number;
  yahtzee_bonus: number;
  reserve: number;
  zeros: number;
  zero_penalty: number;
  strikes: number;
  total: number;
}

interface SheetView {
  rows: SheetRowView[];
  column_stars: (StarView | null)[];
  breakdown: Breakdown;
  /** The stars earned, in order. */
  bonuses: Bonus[];
  jokers: number;
  upper?: { total: number; threshold: number; bonus: number };
}

interface PlayerView {
  seat: number;
  name: string;
  total: number;
  place: number;
  forfeited: boolean;
}

/** A move that may be made now, with what it would score. */
interface LegalOption {
  action: string;
  verb: "score" | "strike" | "zero";
  row: string;
  points: number;
  doubled: boolean;
  gain: number;
}

interface TurnView {
  seat: number;
  dice: number[];
  rolls: number;
  rolls_left: number;
  thrown_all: boolean;
  can_roll: boolean;
  can_keep: boolean;
  legal: LegalOption[];
  /** The positions the last roll kept (live games only). */
  kept?: number[];
  /** The positions the roller holds now: their live selection, else `kept` (live games only). */
  held?: number[];
}

/** A star earned by a move: [kind, key (a row's id, a column's index), value]. */
type Bonus = [string, string | number, number];

/** A seat's last move: the cell it filled (null row and column: a timeout), what it scored. */
interface LastMoveView {
  seat: number;
  /** The view's `turn_number` when it was made. */
  turn: number;
  /** 0: the main game; k: the k-th tie-break game. */
  stage: number;
  verb: "score" | "strike" | "zero" | "timeout";
  row: string | null;
  column: number | null;
  points: number;
  doubled: boolean;
  /** The change of the player's total. */
  gain: number;
  /** The change of the reserve (School), else 0. */
  reserve: number;
  /** The stars this move earned first. */
  stars: Bonus[];
  auto: boolean;
}

interface TiebreakView {
  game: number;
  seats: number[];
  sheets: Record<string, SheetView>;
}

interface GameView {
  rules: RulesView;
  players: PlayerView[];
  sheets: SheetView[];
  finished: boolean;
  turn_number: number;
  winner: number | null;
  ranking: number[];
  tiebreak?: TiebreakView;
  turn?: TurnView;
  /** Each seat's last move (null: none yet), in the server's messages and answers. */
  last_moves?: (LastMoveView | null)[];
}

/** What an event changed in the view (`dicepoker.v2`): each top-level field that changed, whole,
 * but the sheets, only those that changed (by seat); `gone`: the fields the view has no more. */
interface ViewChanges {
  players?: PlayerView[];
  sheets?: Record<string, SheetView>;
  finished?: boolean;
  turn_number?: number;
  winner?: number | null;
  ranking?: number[];
  tiebreak?: TiebreakView;
  turn?: TurnView;
  last_moves?: (LastMoveView | null)[];
  gone?: ("turn" | "tiebreak")[];
}

// --- a live game: seats, clock, fair dice, and the messages of the WebSocket -------------------

type GameStatus = "open" | "running" | "finished" | "abandoned";

interface SeatInfo {
  seat: number;
  kind: "human" | "bot";
  name: string | null;
  level: string | null;
  taken: boolean;
  /** a person playing under their account (absent from older servers) */
  account?: boolean;
}

interface ClockView {
  seat: number;
  /** Milliseconds since the epoch. */
  deadline: number;
  seconds: number;
}

interface FairDiceEntry {
  scheme?: string;
  commitment: string;
  seed?: string;
}

/** What the server says about a game besides the position. */
interface GameMeta {
  status: GameStatus;
  seats: SeatInfo[];
  clock: ClockView | null;
  fair_dice: FairDiceEntry | null;
  /** Each seat's chance of finishing first (ties shared), in seat order, summing to 1: games
   * with rivals, once the server judged the position (absent before, and where it did not). */
  win_probability?: number[];
}

interface WelcomeMessage extends GameMeta {
  type: "welcome";
  seat: number | null;
  seq: number;
  state: GameView;
}

interface EventMessage extends GameMeta {
  type: "event";
  seq: number;
  seat: number;
  action: string;
  auto: boolean;
  /** the whole view after it (dicepoker.v1; v2 when the server did not know the one before) */
  state?: GameView;
  /** dicepoker.v2: what it changed in the view of `seq - 1` */
  changes?: ViewChanges;
}

interface SyncMessage extends GameMeta {
  type: "sync";
  seq: number;
  events: { seq: number; seat: number; action: string }[];
  state: GameView;
}

interface SeatsMessage extends GameMeta {
  type: "seats";
  state: GameView;
}

/** The dice the player to move holds now (news only while the game is at `seq`). */
interface HeldMessage {
  type: "held";
  seq: number;
  seat: number;
  held: number[];
}

/** Each seat's chance of winning at `seq`, judged after its event was told (a busy server). */
interface ChancesMessage {
  type: "chances";
  seq: number;
  win_probability: number[];
}

interface ResyncMessage {
  type: "resync";
}

interface ErrorMessage {
  type: "error";
  code: string;
  message: string;
  ref?: string;
  /** Where the engine said why as data: the catalogs' `reason.{reason}`. */
  reason?: string;
  /** The values the reason names (row ids as ids). */
  params?: Record<string, string | number>;
}

interface PongMessage {
  type: "pong";
}

/** A quick reaction (its words: the catalogs' `reaction.{id}`). */
type ReactionId = "good_game" | "nice_roll" | "well_played" | "good_luck" | "oops" | "thanks";

/** The rematch of this finished game: a seat's connection gets its seat and token there. */
interface RematchMessage {
  type: "rematch";
  game: string;
  url: string;
  seat: number | null;
  token?: string;
}

interface ReactionMessage {
  type: "reaction";
  seat: number;
  reaction: ReactionId;
}

type ServerMessage =
  | WelcomeMessage
  | EventMessage
  | SyncMessage
  | SeatsMessage
  | HeldMessage
  | ChancesMessage
  | ResyncMessage
  | ErrorMessage
  | PongMessage
  | RematchMessage
  | ReactionMessage;

type ClientMessage =
  | { type: "act"; action: string; seq: number; ref: string }
  | { type: "auto"; ref: string }
  | { type: "keep"; seq: number; keep: number[] }
  | { type: "sync"; last_seq: number }
  | { type: "ping" }
  | { type: "react"; reaction: ReactionId };

// --- REST answers -----------------------------------------------------------------------------

/** The answer of `api()`: `data` is the JSON body (an error's is `{error: {code, message}}`). */
interface ApiResult<T = unknown> {
  ok: boolean;
  status: number;
  data: T | null;
  /** Seconds the server asks to wait (Retry-After, with a 429); 0 when it says none. */
  retryAfter?: number;
}

interface ApiErrorBody {
  error?: { code?: string; message?: string; turn?: number; reason?: string; params?: Record<string, string | number> };
  detail?: unknown;
}

/** GET /api/games/{id} */
interface GameResponse extends GameMeta {
  id: string;
  seq: number;
  created_at: string;
  turn_seconds: number;
  state: GameView | null;
}

/** POST /api/games/{id}/rematch (201: made now; 200: it existed) */
interface RematchCreated {
  id: string;
  url: string;
  seat: number;
  token: string;
  created: boolean;
}

/** POST /api/games */
interface CreatedGame {
  id: string;
  url?: string;
  seats?: { seat: number; token?: string | null }[];
  /** it will be rated when it ends, as its seats stand */
  rated?: boolean;
  unrated_reason?: "not_asked" | "solitaire" | "anonymous_seat";
}

interface OptionInfo {
  name: string;
  type?: string;
  default?: boolean | number | null;
  minimum?: number | null;
  maximum?: number | null;
  help?: string;
  /** Its value is part of the rating pool's name (school-3). */
  pool?: boolean;
}

interface VariantInfo {
  name: string;
  title?: string;
  options: OptionInfo[];
  /** The rules with the default options. */
  rules?: RulesView;
}

/** GET /api/variants */
interface VariantsResponse {
  levels?: string[];
  /** The ladder's levels, weakest first. */
  ladder?: string[];
  /** Per rating pool, each bot level's fixed rating as shown. */
  level_ratings?: Record<string, Record<string, number>>;
  variants: VariantInfo[];
}

/** An item of GET /api/games?status=… */
interface GameListItem {
  id: string;
  variant: string;
  options?: Record<string, boolean | number>;
  status: GameStatus;
  players?: (string | null)[];
  created_at?: string;
  updated_at?: string;
}

/** An option of the advisor: an action and its expected final score. */
interface AdviceOption {
  action: string;
  value: number;
  /** The chance of winning, where the advisor gives one. */
  win?: number;
  /** What the advisor ranks by when it differs from `value`. */
  worth?: number;
}

/** GET /api/games/{id}/advice */
interface Advice {
  seq: number;
  seat: number;
  method: string;
  best: AdviceOption | null;
  options: AdviceOption[];
}

interface Decision {
  turn: number;
  seat: number;
  action: string;
  best: string;
  value: number;
  best_value: number;
  loss: number;
  /** The rolls of its turn before it (1-based): the replay viewer's ?turn={turn-1}&roll={roll}. */
  roll?: number;
  /** Every seat's chance of winning at the decision, and once its option is chosen. */
  win_before?: number[] | null;
  win_after?: number[] | null;
  /** The mover's chance after the best option less after the one taken (>= 0). */
  win_lost?: number | null;
  /** The replay viewer at its position (the API only). */
  link?: string;
}

/** A decision with its place in the turn: `k` (0: after the first roll) and its dice. */
interface PlacedDecision extends Decision {
  k: number | null;
  /** The number of the turn among its player's turns (0: not known). */
  own: number;
  dice: number[] | null;
}

interface RatingChange {
  seat: number;
  name: string;
  pool: string;
  before: number;
  after: number;
  change: number;
}

/** GET /api/games/{id}/ratings */
interface GameRatings {
  rated: boolean;
  status: "rated" | "pending" | "unrated";
  reason?: "not_asked" | "solitaire" | "anonymous_seat" | "abandoned";
  changes: RatingChange[];
}

interface AnalysisPlayer {
  seat: number;
  name: string;
  decisions: number;
  mistakes: number;
  expected_loss: number;
  mean_loss: number;
  worst: Decision[];
  /** The luck of the player's rolls, in points of expected final score (+ lucky). */
  luck?: number;
  /** The same in chance of winning (a fraction; null in a game alone). */
  luck_win?: number | null;
  /** The chance of winning lost by the player's decisions (a fraction >= 0; null alone). */
  win_lost?: number | null;
  /** The verdict on the play, by mean loss per decision. */
  verdict?: "perfect" | "excellent" | "strong" | "decent" | "shaky" | "weak" | string;
  /** The costliest decisions (up to 3). */
  key_moments?: Decision[];
}

/** A roll of the game and its luck (the mover's expected final score and chance). */
interface RollLuck {
  turn: number;
  roll: number;
  seat: number;
  dice: number[];
  expected_before: number;
  expected_after: number;
  luck: number;
  win_before?: number | null;
  win_after?: number | null;
  luck_win?: number | null;
}

/** Every seat's chance of winning at a position (the replay viewer's turn and roll). */
interface CurvePoint {
  turn: number;
  roll: number;
  chances: number[];
}

/** A big move of the curve: `curve[index]` against `curve[index - 1]`. */
interface Swing {
  index: number;
  seat: number;
  change: number;
  turn: number;
  roll: number;
  cause: "roll" | "decision" | string;
}

/** GET /api/{games|records}/{id}/analysis */
interface Analysis {
  variant: string;
  method: string;
  players: AnalysisPlayer[];
  decisions: Decision[];
  rolls_per_turn?: number;
  rolls?: RollLuck[];
  /** Every seat's chance at every position, in order (empty in a game alone). */
  curve?: CurvePoint[];
  /** The biggest moves of the curve, largest first (at most 3). */
  swings?: Swing[];
}

interface RecordRoll {
  dice: number[];
  keep?: number[];
}

interface RecordTurn {
  rolls?: RecordRoll[];
  move?: string;
  forfeit?: boolean;
  auto?: boolean;
}

/** A game record (docs/record.md), as far as the pages read it. */
interface GameRecord {
  turns: RecordTurn[];
  players?: string[];
}

/** GET /api/{games|records}/{id}/position?turn=T&roll=R */
interface Position {
  turn: number;
  roll: number;
  turns: number;
  rolls: number;
  move: string | null;
  players: string[];
  /** The seat that played each turn of the record. */
  seats: number[];
  state: GameView;
}

/** GET /api/{games|records}/{id}/verify */
interface Verification {
  ok: boolean;
  reason: string | null;
  message: string | null;
  commitment: string | null;
  seed: string | null;
  rolls: number;
  turn: number | null;
  roll: number | null;
}

/** GET /api/me, and the answer of signing up (POST /api/accounts) and logging in (POST /api/session). */
interface Me {
  name: string;
  created_at: string;
}

// --- the daily challenge (docs/api.md, "Daily challenge") ---------------------------------------

/** A game of a day's challenge. */
interface DailyGame {
  id: string;
  url: string;
  replay: string;
  analysis: string;
  name: string;
  ranked: boolean;
  status: GameStatus;
  score: number | null;
  to_par: number | null;
}

/** A finished game on the leaderboard; `place` null: unranked. */
interface DailyPlace extends DailyGame {
  place: number | null;
}

/** GET /api/daily/{preset}?date=YYYY-MM-DD */
interface DailyChallenge {
  preset: string;
  date: string;
  ends_at: string;
  over: boolean;
  scheme: string;
  commitment: string;
  seed: string | null;
  par: number | null;
  par_level: string;
  games: number;
  /** The logged-in account's name; null: anonymous. */
  account: string | null;
  mine: DailyGame | null;
}

/** POST /api/daily/{preset} (201) */
interface DailyStarted {
  id: string;
  url: string;
  seat: number;
  token: string;
  preset: string;
  date: string;
  ranked: boolean;
}

/** GET /api/daily/{preset}/leaderboard?date=YYYY-MM-DD */
interface DailyLeaderboard {
  preset: string;
  date: string;
  over: boolean;
  par: number | null;
  ranked: DailyPlace[];
  unranked: DailyPlace[];
  finished: number;
  playing: number;
}

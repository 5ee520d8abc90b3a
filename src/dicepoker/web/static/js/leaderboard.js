// The leaderboard is drawn on the server; the pool picker is a plain form (it works without this
// script), which the script sends as soon as another pool is picked.
import { $, loadCatalog } from "./common.js";

loadCatalog();

const picker = $("#pool-picker", HTMLFormElement);
$("#pool", HTMLSelectElement).addEventListener("change", () => picker.requestSubmit());

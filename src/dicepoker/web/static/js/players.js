// A player's page is drawn on the server (the rating graph included); the script only keeps the
// language switch tidy.
import { loadCatalog } from "./common.js";

loadCatalog();

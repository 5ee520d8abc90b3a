// The page for an unknown address: plain HTML; the script only keeps the language switch tidy.
import { loadCatalog } from "./common.js";

loadCatalog();

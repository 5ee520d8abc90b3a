// The rules pages are plain HTML; the script only keeps the language switch tidy.
import { loadCatalog } from "./common.js";

loadCatalog();

/**
 * Datalists (reference lists) and their entries, D1–D7: owned by an account, read by the
 * forms whose fields name them. Routes call these functions with the caller; ownership is
 * checked here.
 */
export { deleteEntry, insertEntries, listEntries } from "./datalist-entries.ts";
export {
  createDatalist,
  deleteDatalist,
  listDatalists,
  listTypes,
  updateDatalist,
} from "./datalists.ts";

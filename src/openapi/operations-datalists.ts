import * as v from "valibot";
import { createDatalistBody, entryItem, updateDatalistBody } from "../schemas/datalists.ts";
import type { Operation } from "./operation.ts";
import { confirmation } from "./responses.ts";

/** D5's body: one item, an array of items, or `{ "entry_items": [ … ] }`. */
const entryItems = {
  name: "DatalistEntryItems",
  schema: v.union([entryItem, v.array(entryItem), v.object({ entry_items: v.array(entryItem) })]),
};

/** Datalists and their entries: D1–D7. */
export const datalistOperations: Operation[] = [
  {
    method: "post",
    path: "/api/restricted/datalist",
    operationId: "createDatalist",
    ref: "D1",
    summary: "Create a datalist",
    tag: "Datalists",
    auth: "account",
    body: { json: { name: "DatalistInput", schema: createDatalistBody }, required: true },
    response: { description: "The datalist record." },
  },
  {
    method: "post",
    path: "/api/restricted/datalist/:datalistId",
    operationId: "updateDatalist",
    ref: "D2, D3",
    summary: "Update a datalist, or delete it with its entries",
    description:
      "With `for_deletion=1` (D3) the datalist and its entries are deleted and the body is ignored.",
    tag: "Datalists",
    auth: "account",
    query: v.object({ for_deletion: v.optional(v.picklist(["0", "1"])) }),
    body: { json: { name: "DatalistChanges", schema: updateDatalistBody }, required: false },
    response: { description: "The datalist record." },
  },
  {
    method: "get",
    path: "/api/restricted/user/datalist",
    operationId: "listDatalists",
    ref: "D4",
    summary: "List the caller's datalists",
    tag: "Datalists",
    auth: "account",
    response: { description: "`results` and the three arrays of datalist ids by access." },
  },
  {
    method: "post",
    path: "/api/restricted/datalist/:datalistId/entry",
    operationId: "insertDatalistEntries",
    ref: "D5",
    summary: "Insert one or several entry items",
    tag: "Datalists",
    auth: "account",
    body: { json: entryItems, required: true },
    response: { description: "A JSON array of the inserted items' ids." },
  },
  {
    method: "delete",
    path: "/api/restricted/datalist/:datalistId/entry/:datalistEntryId",
    operationId: "deleteDatalistEntry",
    ref: "D6",
    summary: "Delete an entry item",
    tag: "Datalists",
    auth: "account",
    response: {
      description: "`datalist_entry_deleted` is true.",
      schema: confirmation(
        "DatalistEntryDeleted",
        "datalist_entry_deleted",
        "Datalist Entry has been deleted successfully",
      ),
    },
  },
  {
    method: "get",
    path: "/api/restricted/datalist/:datalistId/entries",
    operationId: "listDatalistEntries",
    ref: "D7",
    summary: "List a datalist's entry items",
    tag: "Datalists",
    auth: "account",
    response: { description: "`results` in `sort_order`, and `has_edit_access`." },
  },
];

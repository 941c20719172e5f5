import * as v from "valibot";
import * as answers from "../schemas/answers.ts";
import { createDatalistBody, entryItem, updateDatalistBody } from "../schemas/datalists.ts";
import { datalistRecord } from "../schemas/records.ts";
import type { Operation } from "./operation.ts";
import { confirmation } from "./responses.ts";

/** D5's body: one item, an array of items, or `{ "entry_items": [ … ] }`. */
const entryItems = {
  name: "DatalistEntryItems",
  schema: v.union([entryItem, v.array(entryItem), v.object({ entry_items: v.array(entryItem) })]),
};

const datalist = { name: "Datalist", schema: datalistRecord };

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
    response: { description: "The datalist record.", schema: datalist },
  },
  {
    method: "post",
    path: "/api/restricted/datalist/:datalistId",
    operationId: "updateDatalist",
    ref: "D2, D3",
    summary: "Update a datalist, or delete it with its entries",
    description:
      "With `for_deletion=1` (D3) the datalist and its entries are deleted; the body is then read by nobody, so any JSON will do.",
    tag: "Datalists",
    auth: "account",
    query: v.object({ for_deletion: v.optional(v.picklist(["0", "1"])) }),
    body: { json: { name: "DatalistChanges", schema: updateDatalistBody }, required: true },
    response: { description: "The datalist record.", schema: datalist },
  },
  {
    method: "get",
    path: "/api/restricted/user/datalist",
    operationId: "listDatalists",
    ref: "D4",
    summary: "List the caller's datalists",
    tag: "Datalists",
    auth: "account",
    response: {
      description: "`results` and the three arrays of datalist ids by access.",
      schema: { name: "DatalistList", schema: answers.datalistList },
    },
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
    response: {
      description: "A JSON array of the inserted items' ids.",
      schema: { name: "DatalistEntryIds", schema: answers.insertedEntryIds },
    },
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
    response: {
      description: "`results` in `sort_order`, and `has_edit_access`.",
      schema: { name: "DatalistEntryList", schema: answers.datalistEntryList },
    },
  },
];

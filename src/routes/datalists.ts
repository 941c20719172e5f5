import * as v from "valibot";
import {
  createDatalist,
  deleteDatalist,
  deleteEntry,
  insertEntries,
  listDatalists,
  listEntries,
  updateDatalist,
} from "../domain/datalists/index.ts";
import { deviceOf } from "../domain/device.ts";
import { readJson } from "../http/body.ts";
import { parseWith, readFlag } from "../kernel/parse.ts";
import { confirmation } from "../openapi/responses.ts";
import * as answers from "../schemas/answers.ts";
import {
  createDatalistBody,
  entryItem,
  entryItemsOf,
  updateDatalistBody,
} from "../schemas/datalists.ts";
import { datalistRecord } from "../schemas/records.ts";
import type { RouteOperation } from "./operation.ts";
import { callerOf, guidParam, urlOf } from "./route-request.ts";

const base = "/api/restricted/datalist";

/** D5's body: one item, an array of items, or `{ "entry_items": [ … ] }`. */
const entryItems = {
  name: "DatalistEntryItems",
  schema: v.union([entryItem, v.array(entryItem), v.object({ entry_items: v.array(entryItem) })]),
};

const datalist = { name: "Datalist", schema: datalistRecord };

/** Datalists and their entries: D1–D7. */
export const datalistOperations: RouteOperation[] = [
  {
    method: "post",
    path: base,
    operationId: "createDatalist",
    ref: "D1",
    summary: "Create a datalist",
    tag: "Datalists",
    auth: "account",
    body: { json: { name: "DatalistInput", schema: createDatalistBody }, required: true },
    response: { description: "The datalist record.", schema: datalist },
    handler: async (request, ctx) => {
      const body = parseWith(createDatalistBody, await readJson(request, ctx.limits.jsonBodyBytes));
      return createDatalist(ctx, callerOf(request), body.settings);
    },
  },
  {
    method: "post",
    path: `${base}/:datalistId`,
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
    handler: async (request, ctx) => {
      const caller = callerOf(request);
      const datalistId = guidParam(request, "datalistId");
      // D3 ignores its body: deleting takes no settings.
      if (readFlag(urlOf(request), "for_deletion")) return deleteDatalist(ctx, caller, datalistId);
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      return updateDatalist(ctx, caller, datalistId, parseWith(updateDatalistBody, body).settings);
    },
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
    handler: (request, ctx) => listDatalists(ctx, callerOf(request)),
  },
  {
    method: "post",
    path: `${base}/:datalistId/entry`,
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
    handler: async (request, ctx) => {
      const caller = callerOf(request);
      const datalistId = guidParam(request, "datalistId");
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      const items = parseWith(
        v.pipe(
          v.array(entryItem),
          v.minLength(1, "must hold at least one entry item"),
          v.maxLength(
            ctx.limits.entriesPerInsert,
            `must hold at most ${ctx.limits.entriesPerInsert} items`,
          ),
        ),
        entryItemsOf(body),
        "The entry items are not valid",
      );
      const device = await deviceOf(ctx, request.clientAddress);
      return insertEntries(ctx, caller, datalistId, items, device);
    },
  },
  {
    method: "delete",
    path: `${base}/:datalistId/entry/:datalistEntryId`,
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
    handler: async (request, ctx) => {
      const entryId = guidParam(request, "datalistEntryId");
      await deleteEntry(ctx, callerOf(request), guidParam(request, "datalistId"), entryId);
      return {
        message: "Datalist Entry has been deleted successfully",
        datalist_entry_deleted: true,
      };
    },
  },
  {
    method: "get",
    path: `${base}/:datalistId/entries`,
    operationId: "listDatalistEntries",
    ref: "D7",
    summary: "List a datalist's entry items",
    tag: "Datalists",
    auth: "account",
    response: {
      description: "`results` in `sort_order`, and `has_edit_access`.",
      schema: { name: "DatalistEntryList", schema: answers.datalistEntryList },
    },
    handler: (request, ctx) =>
      listEntries(ctx, callerOf(request), guidParam(request, "datalistId")),
  },
];

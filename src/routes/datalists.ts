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
import {
  createDatalistBody,
  entryItem,
  entryItemsOf,
  updateDatalistBody,
} from "../schemas/datalists.ts";
import { callerOf, guidParam, type ServiceRouter, urlOf } from "./route-request.ts";

/** Datalists: D1–D7. */
export function datalistRoutes(router: ServiceRouter): void {
  const base = "/api/restricted/datalist";
  router
    .post(base, async (request, ctx) => {
      const body = parseWith(createDatalistBody, await readJson(request, ctx.limits.jsonBodyBytes));
      return createDatalist(ctx, callerOf(request), body.settings);
    })
    .post(`${base}/:datalistId`, async (request, ctx) => {
      const caller = callerOf(request);
      const datalistId = guidParam(request, "datalistId");
      // D3 ignores its body: deleting takes no settings.
      if (readFlag(urlOf(request), "for_deletion")) return deleteDatalist(ctx, caller, datalistId);
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      return updateDatalist(ctx, caller, datalistId, parseWith(updateDatalistBody, body).settings);
    })
    .get("/api/restricted/user/datalist", (request, ctx) => listDatalists(ctx, callerOf(request)))
    .post(`${base}/:datalistId/entry`, async (request, ctx) => {
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
    })
    .delete(`${base}/:datalistId/entry/:datalistEntryId`, async (request, ctx) => {
      const entryId = guidParam(request, "datalistEntryId");
      await deleteEntry(ctx, callerOf(request), guidParam(request, "datalistId"), entryId);
      return {
        message: "Datalist Entry has been deleted successfully",
        datalist_entry_deleted: true,
      };
    })
    .get(`${base}/:datalistId/entries`, (request, ctx) =>
      listEntries(ctx, callerOf(request), guidParam(request, "datalistId")),
    );
}

/**
 * The server process of `submission-rps.bench.ts`: serves, through `@hono/node-server`,
 * the form service over the lowdb store in `DATA_DIR` (`BENCH_HANDLER=formwork`) or over
 * the memory store (`BENCH_HANDLER=memory`, empty at start), or a bare itty-router JSON
 * handler (`BENCH_HANDLER=bare`), the same way for all, on `PORT`.
 * `BENCH_DURABILITY` (`process`, `machine`) and `BENCH_JOURNAL_BYTES` set the lowdb options.
 * `BENCH_HOLD_RESPONSES=1` holds each response one turn of the event loop before it is
 * written, so that the responses of one turn go out together: a diagnostic of what writing
 * responses one at a time costs on loopback (request-path.bench.ts), not how `npm start`
 * serves.
 * `BENCH_BUSY_US=n` makes the bare handler spend n µs of CPU on each request, as a form
 * service's own work would: a diagnostic of how much work a ratio to the bare handler leaves
 * room for (request-path.bench.ts).
 * `BENCH_PAGE` names a JSON file of records that the bare handler answers, as S5's
 * `results`, on `GET /api/restricted/form/:formId/submissions`: each parsed from its text
 * and the answer written with `JSON.stringify`, the JSON any server answering such a page
 * does, with no store and no authentication (the floor of an S5 page, versus-anchor).
 * Its heap grows as the standalone server's does (`HEAP_GROWING_PERCENT`, default 50), and
 * `startServer` gives it `npm start`'s Node flags, so that what it holds in memory is what
 * `npm start` would (docs/design.md §22).
 * Prints `listening on http://…` when ready; stops on SIGTERM once pending writes are done.
 */
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { Router } from "itty-router";
import { v7 } from "uuid";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { readConfig } from "../examples/standalone/config.ts";
import { limitHeapGrowth } from "../examples/standalone/heap-growth.ts";
import { createFormService } from "../src/index.ts";

limitHeapGrowth(readConfig(process.env).heapGrowingPercent);

type Handler = (request: Request, clientAddress: string | undefined) => Promise<Response>;

/**
 * A POST route that reads a JSON body and answers a small JSON object: the floor; with
 * `busyMicroseconds`, the floor plus that much CPU work per request.
 */
function bareHandler(busyMicroseconds: number): { fetch: Handler; close(): Promise<void> } {
  const router = Router();
  router.post("/api/form/:formId/submission", async (request) => {
    const body = (await request.json()) as { form_fields?: unknown[] };
    if (busyMicroseconds > 0) busyFor(busyMicroseconds);
    return Response.json({
      id: v7(),
      message: "Submission posted successfully",
      fields: body.form_fields?.length ?? 0,
      actionSuccessful: true,
    });
  });
  const page = process.env.BENCH_PAGE;
  if (page) {
    const texts = (JSON.parse(readFileSync(page, "utf8")) as unknown[]).map((record) =>
      JSON.stringify(record),
    );
    router.get("/api/restricted/form/:formId/submissions", () =>
      Response.json(bareAnswer(texts.map((text) => JSON.parse(text)))),
    );
  }
  return { fetch: (request) => router.fetch(request), close: async () => {} };
}

/** S5's answer around `results`, as the bare page of `bench/anchor/bare.js` writes it. */
function bareAnswer(results: unknown[]) {
  return {
    results,
    attachments: [],
    granted_form_roles: ["has_reporting_full"],
    container_sas_uri: "",
    continuation_token: null,
  };
}

/** Keeps this thread busy for `microseconds`, as handling a post would. */
function busyFor(microseconds: number): void {
  const until = performance.now() + microseconds / 1000;
  while (performance.now() < until) {
    // Spinning: the work itself does not matter, only the CPU it takes.
  }
}

async function formworkHandler(
  directory: string | null,
): Promise<{ fetch: Handler; close(): Promise<void> }> {
  const durability = process.env.BENCH_DURABILITY === "machine" ? "machine" : "process";
  const journalBytes = process.env.BENCH_JOURNAL_BYTES
    ? Number(process.env.BENCH_JOURNAL_BYTES)
    : undefined;
  const lowdb = directory ? createLowdbStore({ directory, durability, journalBytes }) : null;
  // Opened before listening, so that the time to the `listening on` line includes the start.
  await lowdb?.open();
  const store = lowdb ?? createMemoryStore();
  const service = createFormService({
    store,
    adminSecret: process.env.ADMIN_SECRET,
    // One load generator is one client address: measure the request path, not the limiter.
    rateLimits: { publicPerMinute: 0 },
  });
  return {
    fetch: (request, clientAddress) => service.fetch(request, { clientAddress }),
    close: async () => {
      await service.close();
    },
  };
}

const kind = process.env.BENCH_HANDLER;
const directory = process.env.DATA_DIR;
if (kind !== "bare" && kind !== "memory" && !(kind === "formwork" && directory)) {
  throw new Error(
    "set BENCH_HANDLER=bare, BENCH_HANDLER=memory, or BENCH_HANDLER=formwork and DATA_DIR",
  );
}
const handler: { fetch: Handler; close(): Promise<void> } =
  kind === "bare"
    ? bareHandler(Number(process.env.BENCH_BUSY_US ?? 0))
    : await formworkHandler(kind === "memory" ? null : (directory as string));
const hold = process.env.BENCH_HOLD_RESPONSES === "1";
const hostname = "127.0.0.1";
const server = serve(
  {
    hostname,
    port: Number(process.env.PORT ?? "0"),
    fetch: async (request, env) => {
      const response = await handler.fetch(request, env.incoming.socket.remoteAddress);
      if (hold) await new Promise((resolve) => setImmediate(resolve));
      return response;
    },
  },
  (info) => console.log(`${kind} listening on http://${hostname}:${info.port}`),
);

process.once("SIGTERM", () => {
  server.close();
  handler.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});

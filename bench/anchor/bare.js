/**
 * The anchor's floor (docs/design.md §22): Fastify doing only the JSON of S2 and S5, with no
 * database, as `bench/submission-server.ts`'s bare handler does over itty-router and
 * `@hono/node-server`. S2 reads the body and answers a small object; S5 answers the records
 * of the JSON file `BENCH_PAGE` as `results`, each parsed from its text, the answer written
 * by Fastify (`JSON.stringify`). `versus-anchor.bench.ts` shows both floors beside the
 * anchor, which tells what an S5 page's HTTP and JSON cost on each stack before any work.
 * Env: `BENCH_PAGE`, `PORT`. Prints `bare anchor listening on http://…`; stops on SIGTERM.
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";
import { v7 } from "uuid";

const texts = JSON.parse(readFileSync(process.env.BENCH_PAGE, "utf8")).map((record) =>
  JSON.stringify(record),
);
const app = Fastify();

app.post("/api/form/:formId/submission", (request) => ({
  id: v7(),
  message: "Submission posted successfully",
  fields: request.body.form_fields?.length ?? 0,
  actionSuccessful: true,
}));

app.get("/api/restricted/form/:formId/submissions", () => ({
  results: texts.map((text) => JSON.parse(text)),
  attachments: [],
  granted_form_roles: ["has_reporting_full"],
  container_sas_uri: "",
  continuation_token: null,
}));

const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
console.log(`bare anchor listening on ${address}`);
process.once("SIGTERM", async () => {
  await app.close();
  process.exit(0);
});

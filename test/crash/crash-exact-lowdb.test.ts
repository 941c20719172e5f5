/**
 * The crash promises on the embedded stores, the yardstick of the Cosmos DB one: the
 * standalone server (lowdb records, fs files) as a child process under the same load,
 * killed -9 and started again each round. A lowdb data folder takes one process, so one
 * instance. Once the deliveries had up to 60 s, the server is stopped and the records read
 * from its files.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { adminSecret, type Owned } from "../standalone/crash-fixture.ts";
import { start } from "../standalone/server-process.ts";
import { readSnapshot } from "./crash-records.ts";
import { crashSettings, pollUntil, runScenario } from "./crash-scenario.ts";
import { deliveredIds } from "./crash-world.ts";

describe("exact crash promises on lowdb and fs, one instance", { timeout: 180_000 }, () => {
  it("keeps every acknowledged write, counters equal to records, every webhook sent", async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-lowdb-"));
    after(() => rm(dataDir, { recursive: true, force: true }));
    await runScenario(t, {
      name: "lowdb+fs, 1 instance",
      rounds: crashSettings.rounds,
      loadMs: 2000,
      clients: 18,
      async instances(receivers) {
        const env = {
          DATA_DIR: dataDir,
          ADMIN_SECRET: adminSecret,
          ALLOW_PRIVATE_WEBHOOKS: "1",
          SMTP_URL: receivers.inbox.url,
          MAIL_FROM: "forms@example.com",
          WEBHOOK_LEASE_MS: "2000",
          WEBHOOK_RETRY_BASE_MS: "100",
          RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
          RATE_LIMIT_CREDENTIAL_PER_MINUTE: "0",
          LOG_LEVEL: "error",
        };
        return { count: 1, start: () => start(env) };
      },
      async recover({ cluster, forms, customerId, receivers }) {
        // The files cannot be read while the server holds them: wait for the webhooks through
        // S5, then stop the server and read what it left.
        await pollUntil(async () => {
          const server = cluster.first();
          const { webhooks } = deliveredIds(receivers);
          for (const form of forms) {
            for (const submission of await listAll(server, form)) {
              if (!submission.is_draft_submission && !webhooks.has(submission.id)) return false;
            }
          }
          return true;
        }, crashSettings.recoveryMs);
        await cluster.stop();
        const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
        try {
          return await readSnapshot(store, forms, customerId, (formId) => fileSizes(formId));
        } finally {
          await store.close();
        }
      },
    });

    /** The bytes of each attachment file of a form (adapters/fs: a JSON line, then the bytes). */
    async function fileSizes(formId: string): Promise<Map<string, number>> {
      const sizes = new Map<string, number>();
      const folder = join(dataDir, "files", formId);
      const names = await readdir(folder).catch(() => []);
      for (const name of names) {
        const blob = await readFile(join(folder, name));
        sizes.set(name, blob.length - blob.indexOf(10) - 1);
      }
      return sizes;
    }
  });
});

/** Every submission of a form, as S5 lists them page by page. */
async function listAll(server: StandaloneServer, form: Owned) {
  const found: { id: string; is_draft_submission: boolean }[] = [];
  let token: string | null = null;
  do {
    const next: string = token ? `&continuationToken=${encodeURIComponent(token)}` : "";
    const query = form.query ? `${form.query}&batchSize=1000` : "?batchSize=1000";
    const path: string = `/api/restricted/form/${form.formId}/submissions${query}${next}`;
    const answer: Response = await fetch(`${server.base}${path}`, {
      headers: form.auth,
      signal: AbortSignal.timeout(10_000),
    });
    if (answer.status !== 200) throw new Error(`S5 answered ${answer.status}`);
    const page = (await answer.json()) as {
      results: { id: string; is_draft_submission: boolean }[];
      continuation_token: string | null;
    };
    found.push(...page.results);
    token = page.continuation_token;
  } while (token);
  return found;
}

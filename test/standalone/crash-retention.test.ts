/**
 * The retention sweep after kill -9 (docs/design.md §12, §15), through the standalone server
 * as a child process: 300 submissions of a partner customer's form, posted 40 days ago with
 * a retention of 30 days (seeded in-process on the server's data folder with a clock set
 * back), are swept by the server, which is killed twice in the middle of it. Once the sweep
 * finished, the form's count must equal its submission records, the storage used the bytes
 * of its attachment records, and exactly one `form_submission.deleted` delivery be queued
 * per submission deleted; the month's submissions stay counted.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { createFormService } from "../../src/index.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import type { Store } from "../../src/ports/store.ts";
import { request, uploadBytes } from "../helpers.ts";
import { customerBody, partnerCalls, tokenSecret } from "../partners/setup.ts";
import { adminSecret, call } from "./crash-fixture.ts";
import { start, stop } from "./server-process.ts";

const day = 24 * 60 * 60 * 1000;
const old = 300;
const young = 20;

const formBody = {
  form_configuration: { settings: { form_name: "Kept 30 days", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          { unique_system_name: "cv_2", type: "file", label: "CV", max_files: 1 },
        ],
      },
    ],
  },
};

type Counts = Record<string, number>;
interface Attachment {
  id: string;
  file_size: number;
  submission_id: string | null;
}

/** The partner, customer, form and webhook, and the submissions, written in-process. */
async function seed(dataDir: string) {
  const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
  const clock = { now: new Date(Date.now() - 40 * day) };
  const service = createFormService({
    store,
    blobs: createFsBlobStore({
      directory: join(dataDir, "files"),
      storageUrl: "http://localhost/storage",
      signingSecret: "seeding signing secret",
    }),
    now: () => clock.now,
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    allowPrivateWebhookDestinations: true,
    partners: { tokenSecret },
    limits: { unclaimedUploadQuotaShare: 1 },
  });
  try {
    const partner = await service.admin.createPartner({ name: "Acme" });
    const calls = partnerCalls(
      (method, path, send) => request(service, method, path, send),
      partner,
    );
    const customerId = await calls.addCustomer(
      customerBody("carla@example.com", { monthly: 10_000, storage: 10_000_000 }),
    );
    const jwt = await calls.login("carla@example.com");
    const form = await calls.asCustomer(jwt, "POST", "/api/restricted/form", { body: formBody });
    const formId: string = form.body.id;
    const settings = `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=securitysettings`;
    const kept = await calls.asCustomer(jwt, "POST", settings, {
      body: { submission_retention_days: 30 },
    });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    const hook = await calls.asCustomer(
      jwt,
      "POST",
      `/api/restricted/form/${formId}/submissionwebhook`,
      {
        body: {
          webhook_name: "deleted",
          webhook_url: "http://127.0.0.1:9/hook",
          events: ["form_submission.deleted"],
        },
      },
    );
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const youngIds: string[] = [];
    for (let n = 0; n < old + young; n++) {
      // The last ones are posted today: the sweep keeps them.
      if (n === old) clock.now = new Date();
      const values = [{ unique_system_name: "name_1", submitted_value: `n${n}` }];
      if (n % 3 === 0) {
        const file = await uploadBytes(service, formId, "cv_2", 500 + n);
        assert.equal(file.status, 200);
        values.push({ unique_system_name: "cv_2", submitted_value: file.body.id });
      }
      const posted = await request(service, "POST", `/api/form/${formId}/submission`, {
        body: { form_fields: values },
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      if (n >= old) youngIds.push(posted.body.id);
    }
    const months = [clock.now, new Date(Date.now() - 40 * day)].map((at) =>
      at.toISOString().slice(0, 7),
    );
    return { formId, customerId, hookId: hook.body.id as string, partner, youngIds, months };
  } finally {
    await service.close();
  }
}

type Seeded = Awaited<ReturnType<typeof seed>>;

/** Reads `dataDir`'s records while no server runs, then closes them. */
async function withRecords<T>(dataDir: string, read: (store: Store) => Promise<T>): Promise<T> {
  const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

/** How many submissions S5 lists; `undefined` once the server is gone. */
async function listed(server: StandaloneServer, seeded: Seeded, auth: Record<string, string>) {
  const query = `batchSize=1000&partnerAccountId=${seeded.partner.partner_id}`;
  const path = `/api/restricted/form/${seeded.formId}/submissions?${query}`;
  const answer = await call(server, "GET", path, auth).catch(() => undefined);
  return answer?.status === 200 ? (answer.body.results as unknown[]).length : undefined;
}

describe("retention sweep after kill -9 (standalone server)", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("finishes the sweep with the counts, storage and deliveries exact", {
    timeout: 120_000,
  }, async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-retention-"));
    dirs.push(dataDir);
    const seeded = await seed(dataDir);
    const env = {
      DATA_DIR: dataDir,
      ADMIN_SECRET: adminSecret,
      SWEEP_INTERVAL_MS: "200",
      ALLOW_PRIVATE_WEBHOOKS: "1",
      WEBHOOK_MAX_ATTEMPTS: "1",
      RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
      RATE_LIMIT_CREDENTIAL_PER_MINUTE: "0",
      LOG_LEVEL: "error",
    };
    const stored = () =>
      withRecords(
        dataDir,
        async (store) => (await queryAll(store, "submissions", seeded.formId)).length,
      );
    // Killed once a third, then two thirds, of the old submissions are gone.
    for (const target of [old + young - old / 3, old + young - (2 * old) / 3]) {
      const server = await start(env);
      const auth = await login(server, seeded.partner);
      for (;;) {
        const count = await listed(server, seeded, auth);
        if (count === undefined || count <= target) break;
      }
      server.child.kill("SIGKILL");
      await new Promise((resolve) => server.child.once("exit", resolve));
      const left = await stored();
      t.diagnostic(`killed with ${left} submissions stored`);
      assert.ok(left > young, "killed before the sweep ended");
    }
    const server = await start(env);
    const auth = await login(server, seeded.partner);
    while ((await listed(server, seeded, auth)) !== young) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(await stop(server.child), 0);

    await withRecords(dataDir, async (store) => {
      const counts = async (collection: string, partition: string, id: string): Promise<Counts> =>
        (await store.get<{ id: string; counts: Counts }>(collection, partition, id))?.record
          .counts ?? {};
      const submissions = await queryAll(store, "submissions", seeded.formId);
      assert.deepEqual(submissions.map((one) => one.id).sort(), [...seeded.youngIds].sort());
      const form = await counts("form_counters", seeded.formId, seeded.formId);
      assert.equal(form.submissions, young, "the form's count equals its records");
      const files = await queryAll<Attachment>(store, "attachments", seeded.formId);
      const ids = new Set(seeded.youngIds);
      for (const file of files) assert.ok(ids.has(file.submission_id ?? ""), `${file.id}'s claim`);
      const used = await counts("customer_counters", seeded.customerId, "total_file_storage");
      const bytes = files.reduce((total, file) => total + file.file_size, 0);
      assert.equal(used.used, bytes, "the storage used is the bytes of the records");
      // An fs blob is a line of JSON about it, then its bytes (adapters/fs/blob-file.ts).
      const folder = join(dataDir, "files", seeded.formId);
      for (const file of files) {
        const blob = await readFile(join(folder, file.id));
        assert.equal(blob.length - blob.indexOf(10) - 1, file.file_size, `${file.id}'s file`);
      }
      const onDisk = await readdir(folder);
      t.diagnostic(`${onDisk.length - files.length} files left by a kill without their record`);
      const deliveries = await queryAll<{ id: string; event_type: string; submission_id: string }>(
        store,
        "webhook_deliveries",
        seeded.hookId,
      );
      const announced = new Set(deliveries.map((one) => one.submission_id));
      assert.equal(deliveries.length, old, "one deletion event per submission deleted");
      assert.equal(announced.size, old);
      for (const id of seeded.youngIds) assert.equal(announced.has(id), false);
      // Submissions a month are never given back (docs/design.md §6).
      const [thisMonth, monthBefore] = seeded.months;
      const monthly = async (month: string | undefined) =>
        (await counts("customer_counters", seeded.customerId, `monthly_form_submissions:${month}`))
          .used ?? 0;
      const total =
        thisMonth === monthBefore
          ? await monthly(thisMonth)
          : (await monthly(thisMonth)) + (await monthly(monthBefore));
      assert.equal(total, old + young);
    });
  });
});

/** A bearer token of Carla's from the running server (its own token key). */
async function login(
  server: StandaloneServer,
  partner: { partner_id: string; partner_secret: string },
) {
  const answer = await call(server, "POST", "/api/restricted/partner/userauth", {
    PartnerId: partner.partner_id,
    PartnerSecret: partner.partner_secret,
    PartnerCustomerEmail: "carla@example.com",
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { Authorization: `Bearer ${answer.body.message}` };
}

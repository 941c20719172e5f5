/**
 * Crash-exact counts (docs/design.md §12, §15), the storage quota, through the standalone
 * server as a child process: concurrent S3 uploads, S2s that claim them and S7s on a
 * partner customer's form with a storage quota, kill -9 three times. Then the quota used
 * must equal the bytes of the attachment records (holds of uploads cut short included), the
 * form's unclaimed bytes (and its client address's) those of the unclaimed ones, and no attachment may be claimed by a
 * missing submission.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { addressCounter } from "../../src/domain/attachments/address-uploads.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import type { Store } from "../../src/ports/store.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { adminSecret, call, loops, type Owned, partnerForm } from "./crash-fixture.ts";
import { start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

const formBody = {
  form_configuration: { settings: { form_name: "Files", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          {
            unique_system_name: "cv_2",
            type: "file",
            label: "CV",
            max_files: 1,
            max_file_size: 64_000,
          },
        ],
      },
    ],
  },
};

interface Attachment {
  id: string;
  file_size: number;
  submission_id: string | null;
  uploading?: true;
}
type Counter = { id: string; counts: Record<string, number> };

/** S3 of `size` bytes; the attachment id when stored, `null` when refused, `undefined` when the process died. */
async function upload(server: StandaloneServer, formId: string, size: number) {
  const body = new FormData();
  body.append("cv_2", new Blob([new Uint8Array(size).fill(98)]), "cv.txt");
  try {
    const url = `${server.base}/api/form/${formId}/submissionattachment`;
    const answer = await fetch(url, { method: "POST", body });
    const json = await answer.json();
    return answer.status === 200 ? (json.id as string) : null;
  } catch {
    return undefined;
  }
}

/** What the clients were told. */
const told = {
  /** Acknowledged S2s: submission id → its file. */
  submitted: new Map<string, string>(),
  /** Acknowledged S7s. */
  deleted: new Set<string>(),
  /** S7s sent but not answered: either way. */
  deleting: new Set<string>(),
};

/** One client's turn: an upload, most often an S2 claiming it, and sometimes its S7. */
async function turn(server: StandaloneServer, owned: Owned, n: number): Promise<boolean> {
  const file = await upload(server, owned.formId, 1000 + ((n * 7919) % 60_000));
  if (file === undefined) return false;
  // Every fourth upload is left unclaimed; a refused one (quota, cap) is simply retried.
  if (file === null || n % 4 === 0) return true;
  const fields = [
    { unique_system_name: "name_1", submitted_value: `n${n}` },
    { unique_system_name: "cv_2", submitted_value: file },
  ];
  const posted = await call(
    server,
    "POST",
    `/api/form/${owned.formId}/submission`,
    {},
    {
      form_fields: fields,
    },
  ).catch(() => undefined);
  if (!posted) return false;
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  told.submitted.set(posted.body.id, file);
  if (n % 3 !== 0) return true;
  const path = `/api/restricted/form/${owned.formId}/submission/${posted.body.id}${owned.query}`;
  told.deleting.add(posted.body.id);
  const deleted = await call(server, "DELETE", path, owned.auth).catch(() => undefined);
  if (!deleted) return false;
  told.deleting.delete(posted.body.id);
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  told.deleted.add(posted.body.id);
  return true;
}

describe("storage quota after kill -9 (standalone server)", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("keeps the quota used equal to the attachment records, and no claim without its submission", async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-storage-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: adminSecret, RATE_LIMIT_PUBLIC_PER_MINUTE: "0" };
    let server = await start(env);
    const { owned, customerId } = await partnerForm(server, formBody, 20_000_000);
    let n = 0;
    for (let round = 0; round < 3; round++) {
      const running = server;
      let answered = 0;
      let loaded: () => void = () => {};
      const busy = new Promise<void>((resolve) => {
        loaded = resolve;
      });
      const clients = loops(12, async () => {
        const going = await turn(running, owned, n++);
        if (++answered === 120) loaded();
        return going;
      });
      await Promise.race([busy, Promise.all(clients)]);
      running.child.kill("SIGKILL");
      await Promise.all(clients);
      server = await start(env);
    }
    assert.equal(await stop(server.child), 0);
    t.diagnostic(`${told.submitted.size} S2s and ${told.deleted.size} S7s acknowledged`);
    assert.ok(told.deleted.size > 0 && told.submitted.size > told.deleted.size);
    // The counts are no part of the HTTP interface: read them from the stopped server's files.
    const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
    try {
      const files = await queryAll<Attachment>(store, "attachments", owned.formId);
      const holds = files.filter((file) => file.uploading);
      t.diagnostic(
        `${files.length} attachment records, ${holds.length} holds of uploads cut short`,
      );
      const used = await counter(store, "customer_counters", customerId, "total_file_storage");
      assert.equal(used.used, sum(files), "the quota used is the bytes of the records");
      const form = await counter(store, "form_counters", owned.formId, owned.formId);
      const unclaimed = files.filter((file) => !file.submission_id);
      assert.equal(form.unclaimed_bytes ?? 0, sum(unclaimed), "unclaimed bytes");
      // Every client is 127.0.0.1: its own count holds the same bytes.
      const address = addressCounter(owned.formId, "127.0.0.1").id;
      const held = await counter(store, "form_counters", owned.formId, address);
      assert.equal(held.unclaimed_bytes ?? 0, sum(unclaimed), "the address's unclaimed bytes");
      const submissions = await queryAll(store, "submissions", owned.formId);
      assert.equal(form.submissions, submissions.length, "the form's count");
      const stored = new Set(submissions.map((submission) => submission.id));
      for (const file of files) {
        if (file.submission_id) assert.ok(stored.has(file.submission_id), `${file.id}'s claim`);
        if (file.uploading) continue;
        // An fs blob is a line of JSON about it, then its bytes (adapters/fs/blob-file.ts).
        const blob = await readFile(join(dataDir, "files", owned.formId, file.id));
        const bytes = blob.length - blob.indexOf(10) - 1;
        assert.equal(bytes, file.file_size, `${file.id}'s file`);
      }
      const byId = new Map(files.map((file) => [file.id, file]));
      for (const [id, file] of told.submitted) {
        if (stored.has(id)) {
          assert.equal(told.deleted.has(id), false, `${id} is back`);
          assert.equal(byId.get(file)?.submission_id, id, `${id}'s file`);
        } else {
          assert.ok(told.deleted.has(id) || told.deleting.has(id), `${id} is gone`);
          assert.equal(byId.has(file), false, `${file} outlived its submission`);
        }
      }
    } finally {
      await store.close();
    }
  });
});

function sum(files: Attachment[]): number {
  return files.reduce((total, file) => total + file.file_size, 0);
}

async function counter(store: Store, collection: string, partition: string, id: string) {
  return (await store.get<Counter>(collection, partition, id))?.record.counts ?? {};
}

import assert from "node:assert/strict";
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { JournalCorruptError } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

const adminSecret = "test-admin-secret";
const formBody = {
  form_configuration: { settings: { form_name: "Crash", form_type: "classicsingle" } },
  form_definition: {
    pages: [{ fields: [{ unique_system_name: "name_1", type: "text", label: "Name" }] }],
  },
};

interface Owner {
  auth: Record<string, string>;
  formId: string;
}

async function post(url: string, headers: Record<string, string>, body: unknown) {
  return fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** An account with one form open to anonymous submissions. */
async function setUp(server: StandaloneServer): Promise<Owner> {
  const account = await (
    await post(
      `${server.base}/api/admin/accounts`,
      { AdminSecret: adminSecret },
      {
        email: "owner@example.com",
      },
    )
  ).json();
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const form = await (await post(`${server.base}/api/restricted/form`, auth, formBody)).json();
  return { auth, formId: form.id };
}

/** Posts one submission; its id when acknowledged, `undefined` when the process died first. */
async function submit(server: StandaloneServer, formId: string, n: number) {
  try {
    const response = await post(
      `${server.base}/api/form/${formId}/submission`,
      {},
      {
        form_fields: [{ unique_system_name: "name_1", submitted_value: `n${n}` }],
      },
    );
    if (response.status !== 200) return undefined;
    return ((await response.json()) as { id: string }).id;
  } catch {
    return undefined;
  }
}

/** Every submission S5 lists, page by page. */
async function listAll(server: StandaloneServer, owner: Owner): Promise<string[]> {
  const ids: string[] = [];
  let token: string | null = null;
  do {
    const query = `?batchSize=1000${token ? `&continuationToken=${encodeURIComponent(token)}` : ""}`;
    const url = `${server.base}/api/restricted/form/${owner.formId}/submissions${query}`;
    const body = (await (await fetch(url, { headers: owner.auth })).json()) as {
      results: { id: string }[];
      continuation_token: string | null;
    };
    ids.push(...body.results.map((r) => r.id));
    token = body.continuation_token;
  } while (token);
  return ids;
}

describe("standalone server and its DATA_DIR", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const dataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "formwork-data-dir-"));
    dirs.push(dir);
    return dir;
  };

  it("refuses a second server on the same DATA_DIR, leaving the first one's data intact", async () => {
    const env = { DATA_DIR: await dataDir(), ADMIN_SECRET: adminSecret };
    const first = await start(env);
    try {
      const owner = await setUp(first);
      const id = await submit(first, owner.formId, 1);
      const line = `DATA_DIR ${env.DATA_DIR} is in use by another Formwork process (pid ${first.pid})`;
      await assert.rejects(start(env), (error: Error) => {
        assert.equal(error.message, `server exited with 1: ${line}\n`);
        return true;
      });
      assert.deepEqual(await listAll(first, owner), [id]);
      assert.ok(await submit(first, owner.formId, 2));
      assert.equal((await listAll(first, owner)).length, 2);
    } finally {
      await stop(first.child);
    }
  });

  it("keeps every acknowledged submission, once, through three kill -9s under load", async () => {
    const env = { DATA_DIR: await dataDir(), ADMIN_SECRET: adminSecret };
    let server = await start(env);
    const owner = await setUp(server);
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      let n = 0;
      let inRound = 0;
      let loaded: () => void = () => {};
      const busy = new Promise<void>((resolve) => {
        loaded = resolve;
      });
      const load = Array.from({ length: 20 }, async () => {
        for (;;) {
          const id = await submit(server, owner.formId, n++);
          if (!id) return;
          acknowledged.push(id);
          if (++inRound === 100) loaded();
        }
      });
      // Killed in the middle of the load, once it is well under way.
      await Promise.race([busy, Promise.all(load)]);
      server.child.kill("SIGKILL");
      await Promise.all(load);
      // Restarting right away: the dead process's lock must not hold the new one up.
      server = await start(env);
    }
    try {
      const listed = await listAll(server, owner);
      assert.equal(new Set(listed).size, listed.length, "a submission is listed twice");
      const missing = acknowledged.filter((id) => !listed.includes(id));
      assert.deepEqual(missing, [], "acknowledged submissions are gone");
      assert.ok(acknowledged.length > 0);
    } finally {
      await stop(server.child);
    }
  });

  it("recovers from a torn journal tail: the intact entries are served, the torn one dropped", async () => {
    const env = { DATA_DIR: await dataDir(), ADMIN_SECRET: adminSecret };
    let server = await start(env);
    const owner = await setUp(server);
    const acknowledged: string[] = [];
    for (let n = 0; n < 5; n++) acknowledged.push((await submit(server, owner.formId, n)) ?? "");
    // kill -9 leaves the journal as it is (no compaction); a write cut short leaves half a line.
    server.child.kill("SIGKILL");
    await new Promise((resolve) => server.child.once("exit", resolve));
    const records = join(env.DATA_DIR, "records");
    const journals = (await readdir(records)).filter((name) => /^journal-\d+\.log$/.test(name));
    const last = join(records, journals.sort().at(-1) ?? "");
    const size = (await stat(last)).size;
    assert.ok(size > 0, "the journal holds the submissions");
    await appendFile(last, '{"c":1234,"e":{"o":"create","c":"submissions","p":"x","r":{"id":"to');
    server = await start(env);
    try {
      assert.deepEqual((await listAll(server, owner)).sort(), [...acknowledged].sort());
      const more = await submit(server, owner.formId, 5);
      assert.ok(more, "the server writes after the torn tail");
      assert.equal((await listAll(server, owner)).length, 6);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });

  it("refuses to start on a journal damaged in the middle: one line naming file and byte, exit 1", async () => {
    const env = { DATA_DIR: await dataDir(), ADMIN_SECRET: adminSecret };
    const server = await start(env);
    const owner = await setUp(server);
    for (let n = 0; n < 60; n++) assert.ok(await submit(server, owner.formId, n));
    server.child.kill("SIGKILL");
    await new Promise((resolve) => server.child.once("exit", resolve));
    const records = join(env.DATA_DIR, "records");
    const journals = (await readdir(records)).filter((name) => /^journal-\d+\.log$/.test(name));
    const journal = join(records, journals.sort().at(-1) ?? "");
    const bytes = await readFile(journal);
    // One flipped byte in the JSON of the entry that starts past the middle of the file.
    const offset = bytes.indexOf(0x0a, bytes.length / 2) + 1;
    assert.ok(offset > 0 && offset < bytes.length - 100);
    bytes[offset + 20] = (bytes[offset + 20] as number) ^ 0x01;
    await writeFile(journal, bytes);
    const line = new JournalCorruptError(journal, offset).message;
    assert.match(line, /Restore the folder from a backup, or run npm run admin -- repair /);
    // The old server started here, without the entries after the flipped byte.
    await assert.rejects(start(env), (error: Error) => {
      assert.equal(error.message, `server exited with 1: ${line}\n`);
      return true;
    });
    assert.deepEqual(await readFile(journal), bytes, "the journal is left as it was");
  });
});

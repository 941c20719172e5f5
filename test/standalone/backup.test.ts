/**
 * Online backup (docs/design.md §23) end to end: `npm run admin -- backup <folder>` against
 * the standalone server as a child process while clients go on posting submissions with
 * files; then a second server started on the copy serves every submission acknowledged
 * before the backup began, and its file byte for byte.
 */
import assert from "node:assert/strict";
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import {
  admin,
  adminSecret,
  type FileForm,
  fileBytes,
  fileForm,
  json,
  type Posted,
  post,
  scratch,
  serverOn,
} from "./backup-fixture.ts";
import { stop } from "./server-process.ts";

const folders: string[] = [];
const servers: StandaloneServer[] = [];
after(async () => {
  for (const server of servers) {
    const running = server.child.exitCode === null && server.child.signalCode === null;
    if (running) await stop(server.child);
  }
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function folder(name: string): Promise<string> {
  const made = await scratch(name);
  folders.push(made);
  return made;
}

/** Every submission id of the form, page by page (S5). */
async function listed(server: StandaloneServer, form: FileForm): Promise<Set<string>> {
  const ids = new Set<string>();
  let token: string | null = null;
  do {
    const query: string = `?batchSize=1000${token ? `&continuationToken=${encodeURIComponent(token)}` : ""}`;
    const page = await json(
      server,
      "GET",
      `/api/restricted/form/${form.formId}/submissions${query}`,
      form.auth,
    );
    for (const { id } of page.results as { id: string }[]) ids.add(id);
    token = page.continuation_token;
  } while (token);
  return ids;
}

/** The file of an attachment, downloaded through its signed link. */
async function download(server: StandaloneServer, form: FileForm, attachmentId: string) {
  const path = `/api/restricted/form/${form.formId}/submissionattachment/${attachmentId}`;
  const link = await json(server, "GET", path, form.auth);
  const file = await fetch(link.id);
  assert.equal(file.status, 200, `download of ${attachmentId}`);
  return new Uint8Array(await file.arrayBuffer());
}

/** Every folder's and file's mode under `root`, that is not `0700` or `0600`. */
async function openModes(root: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const mode = (await stat(path)).mode & 0o777;
    if (mode !== (entry.isDirectory() ? 0o700 : 0o600)) wrong.push(`${path} ${mode.toString(8)}`);
  }
  return wrong;
}

describe("online backup of the standalone server", { timeout: 240_000 }, () => {
  it("copies every submission acknowledged before it began, with its files, while the server serves", async () => {
    const dataDir = await folder("backup-source");
    const source = await serverOn(dataDir);
    servers.push(source);
    const form = await fileForm(source);
    // Two large files: the archive is then larger than what the sockets buffer.
    const posted: Posted[] = [];
    for (let n = 0; n < 2; n++)
      posted.push(await post(source, form.formId, n, fileBytes(n, 3_000_000)));
    let n = 2;
    let backupRunning = false;
    let postedDuring = 0;
    let stopped = false;
    const failures: unknown[] = [];
    const clients = Array.from({ length: 6 }, async () => {
      while (!stopped) {
        const one = await post(source, form.formId, n++).catch((error: unknown) => {
          failures.push(error);
          return undefined;
        });
        if (!one) continue;
        posted.push(one);
        if (backupRunning) postedDuring++;
      }
    });
    while (posted.length < 300) await sleep(20);

    const before = [...posted];
    const copy = join(await folder("backup-copy"), "copy");
    backupRunning = true;
    const run = await admin(source, ["backup", copy]);
    backupRunning = false;
    stopped = true;
    await Promise.all(clients);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^backup of http:\/\/127\.0\.0\.1:\d+ written to .*: \d+ files, /);
    assert.match(run.stdout, /restore: stop the server, replace DATA_DIR with /);
    assert.deepEqual(failures, [], "every post during the backup succeeded");
    assert.ok(postedDuring > 0, "the server kept serving during the backup");
    assert.deepEqual(await openModes(copy), []);
    // No admin-secret file: the server runs with ADMIN_SECRET.
    assert.deepEqual((await readdir(join(copy))).sort(), [
      "customer-token-secret",
      "files",
      "records",
      "signing-secret",
    ]);
    // The source's staging folder is gone once the copy was sent.
    assert.deepEqual(
      (await readdir(dataDir)).filter((name) => name.startsWith(".backup-")),
      [],
    );

    const restored = await serverOn(copy);
    servers.push(restored);
    const ids = await listed(restored, form);
    const missing = before.filter((one) => !ids.has(one.submissionId));
    assert.deepEqual(missing, [], `${missing.length} of ${before.length} submissions missing`);
    for (const one of before.filter((_, i) => i < 2 || i % 10 === 0)) {
      const path = `/api/restricted/form/${form.formId}/submission/${one.submissionId}`;
      const s1 = await json(restored, "GET", path, form.auth);
      assert.equal(s1.attachment_details[0].attachment.id, one.attachmentId);
      const expected = one.n < 2 ? fileBytes(one.n, 3_000_000) : fileBytes(one.n);
      assert.deepEqual(await download(restored, form, one.attachmentId), expected);
    }
    await stop(restored.child);
    await stop(source.child);
  });

  it("refuses a second backup while one runs, and a wrong admin secret; a client gone removes its staging", async () => {
    const dataDir = await folder("backup-busy");
    const server = await serverOn(dataDir);
    servers.push(server);
    const form = await fileForm(server);
    // Larger than what the sockets buffer: the first backup waits on its reader.
    for (let n = 0; n < 4; n++) await post(server, form.formId, n, fileBytes(n, 3_500_000));
    const url = `${server.base}/api/admin/backup`;

    const wrong = await fetch(url, { method: "POST", headers: { AdminSecret: "wrong" } });
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).error, "unauthorized");
    const cli = await admin(server, [
      "backup",
      join(await folder("backup-401"), "copy"),
      "--admin-secret",
      "wrong",
    ]);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /refused the admin secret from --admin-secret \(401\)/);

    const badRate = await fetch(`${url}?max_rate=fast`, {
      method: "POST",
      headers: { AdminSecret: adminSecret },
    });
    assert.equal(badRate.status, 400);
    assert.equal((await badRate.json()).error, "validation_failed");
    const usage = await admin(server, ["backup", join(dataDir, "x"), "--max-rate", "fast"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--max-rate must be a number of MiB a second/);

    const first = new AbortController();
    const running = await fetch(url, {
      method: "POST",
      headers: { AdminSecret: adminSecret },
      signal: first.signal,
    });
    assert.equal(running.status, 200);
    const staging = async () =>
      (await readdir(dataDir)).filter((name) => name.startsWith(".backup-"));
    assert.equal((await staging()).length, 1);

    const second = await fetch(url, { method: "POST", headers: { AdminSecret: adminSecret } });
    assert.equal(second.status, 409);
    const refusal = await second.json();
    assert.equal(refusal.error, "conflict");
    assert.match(refusal.message, /A backup is already running/);
    const copy = join(await folder("backup-busy-copy"), "copy");
    const busy = await admin(server, ["backup", copy]);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /409: A backup is already running/);
    assert.deepEqual(await readdir(join(copy, "..")), [], "a refused backup leaves no folder");

    first.abort();
    for (let attempt = 0; attempt < 100 && (await staging()).length > 0; attempt++) await sleep(50);
    assert.deepEqual(await staging(), []);
    const done = await admin(server, ["backup", copy]);
    assert.equal(done.code, 0, done.stderr);

    // A crash in the middle of a backup leaves its staging folder; the next start removes it.
    const cut = await fetch(url, { method: "POST", headers: { AdminSecret: adminSecret } });
    assert.equal(cut.status, 200);
    assert.equal((await staging()).length, 1);
    const killed = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    await killed;
    await cut.body?.cancel().catch(() => {});
    const restarted = await serverOn(dataDir);
    servers.push(restarted);
    assert.deepEqual(await staging(), []);

    // Stopping the server cuts a backup being sent rather than wait for its reader.
    const unread = await fetch(`${restarted.base}/api/admin/backup`, {
      method: "POST",
      headers: { AdminSecret: adminSecret },
    });
    assert.equal(unread.status, 200);
    assert.equal(await stop(restarted.child), 0);
    await assert.rejects(new Response(unread.body).arrayBuffer());
  });
});

/**
 * The README's "Backups and recovery" run as written: its `sh` blocks, in one bash, against
 * a running server (backup, then restore: stop, replace the folder, start).
 */
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { adminSecret, fileBytes, fileForm, json, post, scratch } from "./backup-fixture.ts";
import { lookLikeTheProject, readmeShellBlocks, runBash } from "./readme-walkthrough.ts";
import { freePort, start } from "./server-process.ts";

const folders: string[] = [];
after(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** The pid in the store's pid file, once a server holds `dataDir`. */
async function serverPid(dataDir: string): Promise<number> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const pid = await readFile(join(dataDir, "records", "formwork.pid"), "utf8").catch(() => "");
    if (pid) return Number(pid);
    await sleep(50);
  }
  throw new Error(`no server took ${dataDir}`);
}

describe("the README's backup and restore", { timeout: 180_000 }, () => {
  it("runs as written: the restored server serves what was there before the backup", async () => {
    const folder = await scratch("readme-backup");
    folders.push(folder);
    await lookLikeTheProject(folder);
    const dataDir = join(folder, "data");
    const port = String(await freePort());
    const env = { DATA_DIR: dataDir, PORT: port, ADMIN_SECRET: adminSecret };
    const server: StandaloneServer = await start(env);
    const form = await fileForm(server);
    const before = await post(server, form.formId, 7);

    const script = (await readmeShellBlocks(["Backups and recovery"])).join("\n");
    assert.match(script, /npm run admin -- backup/);
    const { code, output } = await runBash(script, folder, env);
    assert.equal(code, 0, output);
    assert.match(output, /backup of http:\/\/127\.0\.0\.1:\d+ written to /);
    // The restore block checks the copy before the server starts on it.
    assert.match(output, /verify: .*: 0 faults/);
    assert.equal(server.child.exitCode, 0, "the script stopped the first server");

    // `npm start &` started the restored server on the same port.
    const restoredPid = await serverPid(dataDir);
    assert.notEqual(restoredPid, server.pid);
    try {
      const restored = { ...server, base: `http://127.0.0.1:${port}` };
      for (let attempt = 0; attempt < 200; attempt++) {
        if (
          await fetch(`${restored.base}/api/openapi.json`).then(
            () => true,
            () => false,
          )
        )
          break;
        await sleep(50);
      }
      const path = `/api/restricted/form/${form.formId}/submission/${before.submissionId}`;
      const s1 = await json(restored, "GET", path, form.auth);
      assert.equal(s1.attachment_details[0].attachment.id, before.attachmentId);
      const link = await json(
        restored,
        "GET",
        `/api/restricted/form/${form.formId}/submissionattachment/${before.attachmentId}`,
        form.auth,
      );
      const file = await fetch(link.id);
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), fileBytes(7));
    } finally {
      process.kill(restoredPid, "SIGTERM");
      for (let attempt = 0; attempt < 200; attempt++) {
        try {
          process.kill(restoredPid, 0);
        } catch {
          break;
        }
        await sleep(50);
      }
    }
  });
});

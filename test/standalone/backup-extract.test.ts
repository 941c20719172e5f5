/**
 * The backup CLI's side against a server that sends a hostile or short archive: it writes
 * nothing outside its folder (tar's guards, strict), and a refused or cut copy leaves no
 * folder that could pass for a backup.
 */
import assert from "node:assert/strict";
import { access, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Header } from "tar";
import { runCommand } from "../run-command.ts";
import { scratch } from "./backup-fixture.ts";
import { root } from "./server-process.ts";

const folders: string[] = [];
after(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** A tar archive of the given files, paths as given (not normalised). */
function archive(files: { path: string; body: string }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { path, body } of files) {
    const header = new Header({
      path,
      type: "File",
      size: Buffer.byteLength(body),
      mode: 0o600,
      mtime: new Date(),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    const data = Buffer.alloc(Math.ceil(Buffer.byteLength(body) / 512) * 512);
    data.write(body);
    blocks.push(data);
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A fake server answering the backup route with `body` and the announced totals. */
async function fakeServer(body: Buffer, files: number, bytes: number): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/x-tar",
      "x-backup-files": String(files),
      "x-backup-bytes": String(bytes),
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

function backup(server: Server, folder: string) {
  const address = server.address();
  assert.ok(address && typeof address === "object");
  const flags = ["--conditions=formwork-source", "--import", "tsx"];
  const args = [...flags, "examples/standalone/admin-cli.ts", "backup", folder];
  args.push("--url", `http://127.0.0.1:${address.port}`, "--admin-secret", "any");
  return runCommand(process.execPath, args, { cwd: root, env: { ...process.env } });
}

describe("admin backup against a hostile archive", () => {
  it("writes nothing outside its folder for `..` or an absolute path, and keeps no cut copy", async () => {
    const base = await scratch("backup-hostile");
    folders.push(base);
    const escaped = join(base, "escaped");
    const files = [
      { path: "records/journal-000000000001.log", body: "" },
      { path: "../escaped", body: "outside" },
      { path: `${escaped}-absolute`, body: "outside" },
    ];
    const server = await fakeServer(archive(files), 3, 14);
    const copy = join(base, "copy");
    const run = await backup(server, copy);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /the archive is unsafe or damaged, nothing kept: .*path contains '\.\.'/,
    );
    await assert.rejects(access(escaped));
    await assert.rejects(access(`${escaped}-absolute`));
    assert.deepEqual(await readdir(base), [], "the cut copy was removed");
  });

  it("refuses an archive that holds less than the server announced", async () => {
    const base = await scratch("backup-short");
    folders.push(base);
    const server = await fakeServer(archive([{ path: "records/a", body: "abc" }]), 2, 10);
    const run = await backup(server, join(base, "copy"));
    assert.equal(run.code, 1);
    assert.match(run.stderr, /the backup ended early: 1 of 2 files, 3 of 10 bytes/);
    assert.deepEqual(await readdir(base), []);
  });
});

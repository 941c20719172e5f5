import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "formwork-lowdb-lock-"));
  temporary.push(dir);
  return dir;
}

/** The state letter in `/proc/<pid>/stat`, after the command name's last `)`. */
async function processState(pid: number): Promise<string | undefined> {
  const line = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return line.slice(line.lastIndexOf(")") + 1).trim()[0];
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Every entry under a folder, with its permission bits. */
async function modes(folder: string): Promise<Record<string, string>> {
  const names = await readdir(folder, { recursive: true });
  const found: Record<string, string> = {};
  for (const name of names.sort()) {
    found[name] = ((await stat(join(folder, name))).mode & 0o777).toString(8);
  }
  return found;
}

describe("lowdb store lock", () => {
  it("takes over the lock of a holder killed with -9 and not yet reaped (a zombie)", {
    skip: process.platform !== "linux" && "zombies are read from Linux's /proc",
  }, async () => {
    const directory = await tempDir();
    const holder = join(import.meta.dirname, "lowdb-lock-holder.ts");
    const node = [process.execPath, "--conditions=formwork-source", "--import", "tsx"];
    const quoted = [...node, holder, directory].map((a) => `'${a}'`).join(" ");
    // `sleep` inherits the holder and never waits for it: killed, the holder stays a
    // zombie until `sleep` ends (Node itself would reap a child of its own at once).
    const parent = spawn("sh", ["-c", `${quoted} & echo $!; exec sleep 60`], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let output = "";
      parent.stdout.setEncoding("utf8");
      parent.stdout.on("data", (chunk: string) => {
        output += chunk;
      });
      while (!output.includes("locked\n")) {
        if (!running(parent)) assert.fail(`the holder's parent ended: ${output}`);
        await sleep(50);
      }
      const pid = Number.parseInt(output, 10);
      assert.equal(await readFile(join(directory, "formwork.pid"), "utf8"), String(pid));
      process.kill(pid, "SIGKILL");
      for (let i = 0; (await processState(pid)) !== "Z"; i++) {
        assert.ok(i < 200, "the killed holder never showed as a zombie");
        await sleep(50);
      }
      const store = createLowdbStore({ directory });
      await store.open();
      assert.equal(await readFile(join(directory, "formwork.pid"), "utf8"), String(process.pid));
      assert.equal(await processState(pid), "Z", "still a zombie when the store started");
      await store.close();
    } finally {
      parent.kill("SIGKILL");
      if (running(parent)) await once(parent, "exit");
    }
  });

  it("keeps its lock folder 0700 and its pid file 0600, whatever the umask", async () => {
    const directory = await tempDir();
    const umask = process.umask(0o022);
    try {
      const store = createLowdbStore({ directory });
      await store.open();
      await store.create("t", "p", { id: "x" });
      const found = await modes(directory);
      assert.equal(found["formwork.lock"], "700");
      assert.equal(found["formwork.pid"], "600");
      for (const [name, mode] of Object.entries(found)) {
        const isFolder = (await stat(join(directory, name))).isDirectory();
        assert.equal(mode, isFolder ? "700" : "600", name);
      }
      await store.close();
    } finally {
      process.umask(umask);
    }
  });
});

/**
 * `npm run admin -- verify` and `repair` end to end: the real server writes a store, is
 * stopped, its files are damaged, and the CLI (a child process) finds, repairs and verifies
 * it; the server then starts on the repaired store and serves S5.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { type CommandRun, runCommand } from "../run-command.ts";
import { root, start, stop } from "./server-process.ts";

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

/** The admin CLI on `dataDir`, as `npm run admin` runs it, without npm's own lines. */
function admin(command: string, dataDir: string): Promise<CommandRun> {
  const node = [process.execPath, "--conditions=formwork-source", "--import", "tsx"];
  const env = { ...process.env, DATA_DIR: dataDir };
  return runCommand(
    node[0] as string,
    [...node.slice(1), "examples/standalone/admin-cli.ts", command],
    {
      cwd: root,
      env,
    },
  );
}

/**
 * A server on a fresh DATA_DIR with a form of `count` submissions, stopped (its journal
 * compacted into the segment files) or killed with SIGKILL (the submissions left in it).
 */
async function storeWith(count: number, ending: "stop" | "kill" = "stop") {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-maintenance-"));
  temporary.push(dataDir);
  const server = await start({
    DATA_DIR: dataDir,
    ADMIN_SECRET: "maintenance secret",
    RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
  });
  const call = async (method: string, path: string, body?: unknown, headers = {}) => {
    const response = await fetch(`${server.base}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const account = await call(
    "POST",
    "/api/admin/accounts",
    { email: "alice@example.com" },
    { AdminSecret: "maintenance secret" },
  );
  const as = { TokenId: account.body.token_id, TokenSecret: account.body.token_secret };
  const fields = [{ unique_system_name: "gpi_1", type: "text", label: "Name", required: true }];
  const form = await call(
    "POST",
    "/api/restricted/form",
    {
      form_configuration: { settings: { form_name: "Contact", form_type: "classicsingle" } },
      form_definition: { pages: [{ title: "Page 1", fields }] },
    },
    as,
  );
  const formId = form.body.id as string;
  for (let n = 0; n < count; n++) {
    const posted = await call("POST", `/api/form/${formId}/submission`, {
      form_fields: [{ unique_system_name: "gpi_1", submitted_value: `Ada ${n}` }],
    });
    assert.equal(posted.status, 200);
  }
  if (ending === "stop") assert.equal(await stop(server.child), 0);
  else {
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    await exited;
  }
  const records = join(dataDir, "records");
  return { dataDir, records, formId, as, folder: join(records, "submissions", formId) };
}

/** S5 of the form on a server started again on `dataDir`. */
async function listAgain(store: Awaited<ReturnType<typeof storeWith>>) {
  const server = await start({ DATA_DIR: store.dataDir });
  try {
    const response = await fetch(`${server.base}/api/restricted/form/${store.formId}/submissions`, {
      headers: store.as,
    });
    return { status: response.status, body: await response.json() };
  } finally {
    await stop(server.child);
  }
}

async function assertRepaired(store: Awaited<ReturnType<typeof storeWith>>) {
  const verified = await admin("verify", store.dataDir);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, /verify: .*: 0 faults/);
  const listed = await listAgain(store);
  assert.equal(listed.status, 200);
  return listed.body.results as { id: string }[];
}

describe("npm run admin -- verify and repair", () => {
  it("finds a clean store clean, and refuses a store a server runs on", async () => {
    const store = await storeWith(3);
    const verified = await admin("verify", store.dataDir);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(
      verified.stdout,
      /^verify: 0 journal files \(0 entries\), \d+ partitions, .*: 0 faults$/m,
    );
    const server = await start({ DATA_DIR: store.dataDir });
    try {
      for (const command of ["verify", "repair"]) {
        const refused = await admin(command, store.dataDir);
        assert.equal(refused.code, 1);
        assert.equal(
          refused.stderr,
          `DATA_DIR ${store.dataDir} is in use by another Formwork process (pid ${server.pid})\n`,
        );
      }
    } finally {
      await stop(server.child);
    }
  });

  it("finds and repairs a changed byte and a cut-short segment, moving both aside", async () => {
    const store = await storeWith(450);
    const files = (await readdir(store.folder)).filter((f) => f !== "manifest.json").sort();
    assert.ok(files.length >= 3, files.join());
    const changed = join(store.folder, files[0] as string);
    const text = await readFile(changed, "utf8");
    const at = text.indexOf('"created_date_utc":"', text.indexOf("\n")) + 37;
    await writeFile(changed, `${text.slice(0, at)}#${text.slice(at + 1)}`);
    const cut = join(store.folder, files[1] as string);
    await truncate(cut, (await readFile(cut)).byteLength - 100);
    // The server serves neither file: S5 answers 503, and its log names the file.
    const server = await start({ DATA_DIR: store.dataDir });
    let log = "";
    server.child.stderr?.on("data", (chunk) => {
      log += chunk;
    });
    const listed = await fetch(`${server.base}/api/restricted/form/${store.formId}/submissions`, {
      headers: store.as,
    });
    assert.equal(listed.status, 503);
    assert.equal((await listed.json()).error, "service_unavailable");
    await stop(server.child);
    assert.match(log, new RegExp(`lowdb store: cannot read (${changed}|${cut}): `));
    const verified = await admin("verify", store.dataDir);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, new RegExp(`fault: ${changed}: its checksum does not match`));
    assert.match(verified.stdout, new RegExp(`fault: ${cut}: `));
    assert.match(verified.stdout, /: 2 faults$/m);
    const repaired = await admin("repair", store.dataDir);
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.match(repaired.stdout, new RegExp(`repaired: ${changed}: .*moved to .*\\.damaged-`));
    assert.match(repaired.stdout, /records lost unless the journal holds them: [0-9a-f-]{36}/);
    const aside = (await readdir(store.records)).filter((f) => f.startsWith(".damaged-"));
    assert.equal(aside.length, 1);
    const kept = await readdir(
      join(store.records, aside[0] as string, "submissions", store.formId),
    );
    assert.deepEqual(kept.sort(), [files[0], files[1]].sort());
    // The form's counter now counts what is left, so verify finds it equal.
    const left = await assertRepaired(store);
    assert.ok(left.length < 450 && left.length > 0);
  });

  it("rebuilds a damaged manifest from the segment files, losing nothing", async () => {
    const store = await storeWith(450);
    const manifest = join(store.folder, "manifest.json");
    const text = await readFile(manifest, "utf8");
    await writeFile(manifest, text.replace('"low":"0', '"low":"1'));
    const verified = await admin("verify", store.dataDir);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, new RegExp(`fault: ${manifest}: its checksum`));
    const repaired = await admin("repair", store.dataDir);
    assert.match(
      repaired.stdout,
      new RegExp(`repaired: ${manifest}: .*rebuilt from \\d+ segment files`),
    );
    assert.equal((await assertRepaired(store)).length, 100);
  });

  it("cuts a journal damaged in the middle at its first bad entry, saying what it dropped", async () => {
    const store = await storeWith(6, "kill");
    const path = join(store.records, await lastJournal(store.records));
    const bytes = await readFile(path);
    // One changed byte in the fourth line from the end: each S2 is one line (a batch).
    const starts = [0];
    for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 0x0a) starts.push(i + 1);
    const line = starts[starts.length - 4] as number;
    bytes[line + 30] = (bytes[line + 30] as number) ^ 1;
    await writeFile(path, bytes);
    const verified = await admin("verify", store.dataDir);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, new RegExp(`fault: ${path} at byte ${line}: `));
    const repaired = await admin("repair", store.dataDir);
    assert.match(
      repaired.stdout,
      new RegExp(
        `repaired: ${path} at byte ${line}: cut here: .*the damaged entry and 3 intact entries after it \\(.*submissions/${store.formId}/`,
      ),
    );
    assert.equal((await assertRepaired(store)).length, 2);
  });

  it("reports a counter that disagrees with its records and sets it right", async () => {
    const store = await storeWith(4);
    const offline = createLowdbStore({ directory: store.records });
    const counter = await offline.get<{ id: string; counts: Record<string, number> }>(
      "form_counters",
      store.formId,
      store.formId,
    );
    assert.equal(counter?.record.counts.submissions, 4);
    const record = { ...counter.record, counts: { ...counter.record.counts, submissions: 9 } };
    await offline.replace("form_counters", store.formId, record);
    await offline.close();
    const verified = await admin("verify", store.dataDir);
    assert.equal(verified.code, 1);
    assert.match(
      verified.stdout,
      new RegExp(
        `fault: form_counters/${store.formId}/${store.formId}: counts.submissions is 9, its records make 4`,
      ),
    );
    const repaired = await admin("repair", store.dataDir);
    assert.match(repaired.stdout, /repaired: form_counters\/.*: set to what its records make/);
    assert.equal((await assertRepaired(store)).length, 4);
  });
});

async function lastJournal(directory: string): Promise<string> {
  const journals = (await readdir(directory)).filter((f) => f.startsWith("journal-")).sort();
  return journals.at(-1) as string;
}

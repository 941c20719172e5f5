/**
 * Damaged snapshot files of a stopped lowdb store are never served: a changed byte inside a
 * segment's record line, a segment cut short, a changed manifest. S1 and S5 answer 503
 * `service_unavailable` through the service, and the store's log line names the file.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createFormService } from "../../src/index.ts";
import { textField } from "../form-fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A service over a lowdb store in `directory` (segments of 2 records), and what it warned. */
function open(directory: string) {
  const warnings: string[] = [];
  const store = createLowdbStore({ directory, segmentSize: 2, warn: (m) => warnings.push(m) });
  const service = createFormService({ store });
  return { service, warnings };
}

/** A stopped store holding a form with five submissions: its folder, form, ids and owner. */
async function stoppedStore() {
  const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-checksums-"));
  temporary.push(directory);
  const { service } = open(directory);
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const form = await request(service, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Contact", [textField]),
  });
  const formId = form.body.id as string;
  const ids: string[] = [];
  for (let n = 0; n < 5; n++) {
    const posted = await request(service, "POST", `/api/form/${formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "gpi_1", submitted_value: `Ada ${n}` }] },
    });
    assert.equal(posted.status, 200);
    ids.push(posted.body.id);
  }
  await service.close();
  // Form ids are lowercase hex and hyphens: their folder names are the ids themselves.
  return { directory, folder: join(directory, "submissions", formId), formId, ids, alice };
}

/** S1 of the first submission and S5 of the form, on a fresh service over `directory`. */
async function readBoth(store: Awaited<ReturnType<typeof stoppedStore>>) {
  const { service, warnings } = open(store.directory);
  const base = `/api/restricted/form/${store.formId}`;
  const s1 = await request(service, "GET", `${base}/submission/${store.ids[0]}`, {
    as: store.alice,
  });
  const s5 = await request(service, "GET", `${base}/submissions`, { as: store.alice });
  await service.close();
  return { s1, s5, warnings };
}

function assertUnavailable(read: Awaited<ReturnType<typeof readBoth>>, file: string) {
  for (const answer of [read.s1, read.s5]) {
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal(answer.body.error, "service_unavailable");
  }
  assert.ok(read.warnings.length > 0, "a line is logged");
  for (const line of read.warnings) assert.ok(line.includes(file), line);
}

/** The manifest of a partition, as written. */
async function segmentFiles(folder: string): Promise<string[]> {
  const text = await readFile(join(folder, "manifest.json"), "utf8");
  return (JSON.parse(text) as { segments: { file: string }[] }).segments.map((s) => s.file);
}

describe("lowdb snapshot checksums", () => {
  it("serves a stopped store's submissions as they were", async () => {
    const store = await stoppedStore();
    const read = await readBoth(store);
    assert.equal(read.s1.status, 200);
    assert.equal(read.s5.status, 200);
    assert.equal(read.s5.body.results.length, 5);
    assert.deepEqual(read.warnings, []);
  });

  it("still reads segments and manifests written before checksums", async () => {
    const store = await stoppedStore();
    const files = await segmentFiles(store.folder);
    for (const file of files) {
      const path = join(store.folder, file);
      const text = await readFile(path, "utf8");
      const older = text.replace(/^\{"format":"formwork-segment\/3","crc":"[0-9a-f]{8}"/, "");
      await writeFile(path, `{"format":"formwork-segment/2"${older}`);
    }
    const manifest = join(store.folder, "manifest.json");
    const { segments } = JSON.parse(await readFile(manifest, "utf8"));
    await writeFile(manifest, JSON.stringify({ segments }));
    const read = await readBoth(store);
    assert.equal(read.s1.status, 200);
    assert.deepEqual(
      read.s5.body.results.map((s: { id: string }) => s.id).sort(),
      [...store.ids].sort(),
    );
    assert.deepEqual(read.warnings, []);
  });

  it("answers 503 for a segment with one byte changed inside a record line", async () => {
    const store = await stoppedStore();
    const [first] = await segmentFiles(store.folder);
    const path = join(store.folder, first as string);
    const text = await readFile(path, "utf8");
    // A digit of the first record line's created_date_utc (not of the header's index).
    const line = text.indexOf("\n") + 1;
    const at = text.indexOf('"created_date_utc":"', line) + '"created_date_utc":"'.length + 17;
    assert.match(text.charAt(at), /[0-9]/);
    await writeFile(path, `${text.slice(0, at)}#${text.slice(at + 1)}`);
    assertUnavailable(await readBoth(store), path);
  });

  it("answers 503 for a segment cut short", async () => {
    const store = await stoppedStore();
    const [first] = await segmentFiles(store.folder);
    const path = join(store.folder, first as string);
    const size = (await readFile(path)).byteLength;
    await truncate(path, size - 40);
    assertUnavailable(await readBoth(store), path);
  });

  it("answers 503 for a manifest with one byte changed", async () => {
    const store = await stoppedStore();
    const path = join(store.folder, "manifest.json");
    const text = await readFile(path, "utf8");
    // The second segment's lowest id, one hex digit changed: a wrong owner for some ids.
    const at = text.indexOf('"low":"', text.indexOf('"low":"') + 1) + '"low":"'.length + 3;
    const digit = text.charAt(at) === "0" ? "1" : "0";
    await writeFile(path, `${text.slice(0, at)}${digit}${text.slice(at + 1)}`);
    assertUnavailable(await readBoth(store), path);
  });
});

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { countingStore } from "../counting-store.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";

/** Idempotent posts: S2 and S6 with an `Idempotency-Key` (docs/design.md §6). */

const fields = [{ unique_system_name: "name_1", type: "text", label: "Name", required: false }];
const post = (name: string) => ({
  form_fields: [{ unique_system_name: "name_1", submitted_value: name }],
});

async function world(store: Store) {
  const clock = { now: new Date("2026-11-01T10:00:00.000Z") };
  const service = createFormService({
    store: serviceQueriesOnly(store),
    now: () => clock.now,
    sweepIntervalMs: 0,
  });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const formId = await newForm(service, alice);
  return { service, alice, formId, clock };
}

async function newForm(service: FormService, owner: TestUser): Promise<string> {
  const created = await request(service, "POST", "/api/restricted/form", {
    as: owner,
    body: formInput("Contact", fields),
  });
  assert.equal(created.status, 200);
  return created.body.id;
}

function submitWithKey(
  service: FormService,
  formId: string,
  body: unknown,
  key: string,
  as?: TestUser,
) {
  return request(service, "POST", `/api/form/${formId}/submission`, {
    body,
    headers: { "Idempotency-Key": key },
    ...(as ? { as } : {}),
  });
}

async function submissionCount(service: FormService, formId: string, owner: TestUser) {
  const listed = await request(service, "GET", `/api/restricted/form/${formId}/submissions`, {
    as: owner,
  });
  assert.equal(listed.status, 200);
  return listed.body.results.length as number;
}

for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
  describe(`Idempotency-Key on S2 and S6 (${name})`, () => {
    it("answers a repeated post with the first answer, and stores one submission", async () => {
      const { service, alice, formId } = await world(await open());
      const first = await submitWithKey(service, formId, post("Ada"), "key-1");
      const again = await submitWithKey(service, formId, post("Ada"), "key-1");
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("idempotent-replayed"), null);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.body, first.body);
      assert.equal(await submissionCount(service, formId, alice), 1);
    });

    it("stores one submission for the same key sent 20 times at once", async () => {
      const { service, alice, formId } = await world(await open());
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => submitWithKey(service, formId, post("Ada"), "burst")),
      );
      for (const answer of answers) {
        assert.ok(answer.status === 200 || answer.status === 409, `status ${answer.status}`);
        if (answer.status === 409) assert.equal(answer.body.error, "idempotency_conflict");
      }
      const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.id));
      assert.equal(ids.size, 1);
      assert.equal(await submissionCount(service, formId, alice), 1);
    });

    it("answers 409 idempotency_conflict for the same key with another body", async () => {
      const { service, alice, formId } = await world(await open());
      assert.equal((await submitWithKey(service, formId, post("Ada"), "k")).status, 200);
      const other = await submitWithKey(service, formId, post("Grace"), "k");
      assert.equal(other.status, 409);
      assert.equal(other.body.error, "idempotency_conflict");
      assert.equal(other.body.actionSuccessful, false);
      assert.equal(await submissionCount(service, formId, alice), 1);
    });

    it("scopes keys per caller and per form", async () => {
      const { service, alice, formId } = await world(await open());
      const bob = (await service.admin.createAccount({ email: "bob@example.com" })) as TestUser;
      const otherForm = await newForm(service, alice);
      const ids = [
        (await submitWithKey(service, formId, post("Ada"), "shared")).body.id,
        (await submitWithKey(service, formId, post("Ada"), "shared", bob)).body.id,
        (await submitWithKey(service, formId, post("Ada"), "shared", alice)).body.id,
        (await submitWithKey(service, otherForm, post("Ada"), "shared")).body.id,
      ];
      assert.equal(new Set(ids).size, 4);
      assert.equal(await submissionCount(service, formId, alice), 3);
    });

    it("forgets a key after 24 hours", async () => {
      const { service, alice, formId, clock } = await world(await open());
      const first = await submitWithKey(service, formId, post("Ada"), "daily");
      clock.now = new Date(clock.now.getTime() + 24 * 60 * 60 * 1000 - 1);
      const within = await submitWithKey(service, formId, post("Ada"), "daily");
      assert.equal(within.body.id, first.body.id);
      clock.now = new Date(clock.now.getTime() + 1);
      const later = await submitWithKey(service, formId, post("Ada"), "daily");
      assert.equal(later.status, 200);
      assert.notEqual(later.body.id, first.body.id);
      assert.equal(later.headers.get("idempotent-replayed"), null);
      const again = await submitWithKey(service, formId, post("Ada"), "daily");
      assert.equal(again.body.id, later.body.id);
      assert.equal(await submissionCount(service, formId, alice), 2);
    });

    it("keeps no answer for a post that failed, so the key can be used again", async () => {
      const { service, alice, formId } = await world(await open());
      const bad = { form_fields: [{ unique_system_name: "nope_9", submitted_value: "x" }] };
      assert.equal((await submitWithKey(service, formId, bad, "retry")).status, 400);
      assert.equal((await submitWithKey(service, formId, bad, "retry")).status, 400);
      assert.equal((await submitWithKey(service, formId, post("Ada"), "retry")).status, 200);
      assert.equal(await submissionCount(service, formId, alice), 1);
    });

    it("refuses an invalid key with 400, and reads a quoted one", async () => {
      const { service, formId } = await world(await open());
      for (const key of ["", "x".repeat(256), "clé"]) {
        const answer = await submitWithKey(service, formId, post("Ada"), key);
        assert.equal(answer.status, 400, JSON.stringify(key));
        assert.equal(answer.body.error, "validation_failed");
      }
      const bare = await submitWithKey(service, formId, post("Ada"), "x".repeat(255));
      assert.equal(bare.status, 200);
      const quoted = await submitWithKey(service, formId, post("Ada"), `"${"x".repeat(255)}"`);
      assert.equal(quoted.body.id, bare.body.id);
    });

    it("replays S6 and refuses its key with another body", async () => {
      const { service, alice, formId } = await world(await open());
      const { body } = await submitWithKey(service, formId, post("Ada"), "s2");
      const path = `/api/restricted/form/${formId}/submission/${body.id}`;
      const edit = (name: string, key: string) =>
        request(service, "POST", path, {
          as: alice,
          body: post(name),
          headers: { "Idempotency-Key": key },
        });
      const first = await edit("Grace", "s6");
      assert.equal(first.status, 200);
      const again = await edit("Grace", "s6");
      assert.equal(again.status, 200);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.body, first.body);
      const other = await edit("Hopper", "s6");
      assert.equal(other.status, 409);
      assert.equal(other.body.error, "idempotency_conflict");
      const read = await request(service, "GET", path, { as: alice });
      assert.equal(read.body.form_submission.form_fields[0].submitted_value, "Grace");
    });
  });
}

describe("Idempotency-Key across a restart", () => {
  it("replays the first answer from the store a new service opens", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-idem-"));
    after(() => rm(directory, { recursive: true, force: true }));
    const first = await world(createLowdbStore({ directory }));
    const posted = await submitWithKey(first.service, first.formId, post("Ada"), "restart");
    await first.service.close();
    const service = createFormService({
      store: createLowdbStore({ directory }),
      now: () => first.clock.now,
      sweepIntervalMs: 0,
    });
    after(() => service.close());
    const again = await submitWithKey(service, first.formId, post("Ada"), "restart");
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.body.id, posted.body.id);
    assert.equal(await submissionCount(service, first.formId, first.alice), 1);
  });
});

describe("Idempotency-Key's store calls", () => {
  it("costs a first S2 no call more, and a retry one read", async () => {
    const calls: string[] = [];
    const { createMemoryStore } = await import("../../adapters/memory/index.ts");
    const { service, formId } = await world(countingStore(createMemoryStore(), calls));
    await submitWithKey(service, formId, post("warm"), "warm-up");
    calls.length = 0;
    await request(service, "POST", `/api/form/${formId}/submission`, { body: post("Ada") });
    const plain = [...calls];
    calls.length = 0;
    await submitWithKey(service, formId, post("Ada"), "counted");
    assert.deepEqual(calls, plain);
    calls.length = 0;
    const again = await submitWithKey(service, formId, post("Ada"), "counted");
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(calls, [...plain, "get idempotency_keys"]);
  });
});

describe("Idempotency-Key's sweep", () => {
  it("removes the key records past 24 hours, and those of a deleted form", async () => {
    const { createMemoryStore } = await import("../../adapters/memory/index.ts");
    const store = createMemoryStore();
    const { service, alice, formId, clock } = await world(store);
    const keys = async (form: string) =>
      (await store.query("idempotency_keys", form)).items.map(({ record }) => record.id);
    await submitWithKey(service, formId, post("Ada"), "old");
    clock.now = new Date(clock.now.getTime() + 2 * 60 * 60 * 1000);
    await submitWithKey(service, formId, post("Ada"), "young");
    assert.equal((await keys(formId)).length, 2);
    clock.now = new Date(clock.now.getTime() + 23 * 60 * 60 * 1000);
    await service.sweepAttachments();
    const left = await keys(formId);
    assert.equal(left.length, 1);
    assert.equal((await submitWithKey(service, formId, post("Ada"), "young")).status, 200);
    assert.equal((await store.query("idempotency_notes", "2026-11-01T10")).items.length, 0);
    const f3 = `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`;
    const deleted = await request(service, "POST", f3, { as: alice });
    assert.equal(deleted.status, 200);
    assert.deepEqual(await keys(formId), []);
  });
});

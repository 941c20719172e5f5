/**
 * The layout of the records S2 writes, which S5 relies on to answer a page from the store's
 * texts (docs/design.md §18, "Range reads"): the id first, and what S5 leaves out last; and
 * `publicSubmissionText`, which tells S5's text of a record from the record's own text.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { benchSubmission, formBody } from "../../bench/seeded-form.ts";
import {
  idOfSubmissionText,
  publicSubmission,
  publicSubmissionText,
  type SubmissionRecord,
} from "../../src/domain/records/submission-record.ts";
import { createFormService } from "../../src/index.ts";
import { request, type TestUser } from "../helpers.ts";

describe("the layout of a submission's record", () => {
  it("is written by S2 with its id first and its empty inventory and files last, as the benches seed it", async () => {
    const store = createMemoryStore();
    const service = createFormService({ store, sweepIntervalMs: 0 });
    const alice = (await service.admin.createAccount({ email: "a@example.com" })) as TestUser;
    const form = await request(service, "POST", "/api/restricted/form", {
      as: alice,
      body: formBody,
    });
    const formId: string = form.body.id;
    const posted = await request(service, "POST", `/api/form/${formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Person 7" }] },
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const stored = await store.get<SubmissionRecord>("submissions", formId, posted.body.id);
    const record = stored?.record as SubmissionRecord;
    const seeded = {
      ...benchSubmission(formId, 7, Date.parse(record.created_date_utc)),
      id: record.id,
    };
    assert.deepEqual(Object.keys(record), Object.keys(seeded));
    assert.deepEqual(record, seeded);
    const json = JSON.stringify(record);
    assert.equal(publicSubmissionText(json), JSON.stringify(publicSubmission(record)));
    assert.equal(idOfSubmissionText(publicSubmissionText(json) as string), record.id);
    await service.close();
  });

  it("tells S5's text of a record from its text only when that is exact", () => {
    const base = benchSubmission("f", 1, Date.UTC(2026, 0, 1));
    const textOf = (record: object) => publicSubmissionText(JSON.stringify(record));
    const shown = (record: object) => JSON.stringify(publicSubmission(record as SubmissionRecord));
    // Told: the ending S2 writes, and quoted keys inside values (written with escapes).
    for (const record of [
      base,
      {
        ...base,
        form_fields: [{ unique_system_name: "name_1", submitted_value: 'a "history": b' }],
      },
      { ...base, stale_form_name: '"inventory_taken":[],"attachments_held":[]}' },
    ]) {
      assert.equal(textOf(record), shown(record));
    }
    // Not told: a file held, inventory taken, an edit's history, other fields left out,
    // or another order (an older layout).
    const { inventory_taken, attachments_held, ...rest } = base;
    for (const record of [
      { ...base, attachments_held: [{ id: "x" }] },
      { ...base, inventory_taken: [{ field: "f", option: "o" }] },
      { ...base, history: [] },
      { ...rest, respondent_keys: ["k"], inventory_taken, attachments_held },
      { ...rest, payment_attempts: 1, inventory_taken, attachments_held },
      { inventory_taken, attachments_held, ...rest },
      rest,
    ]) {
      assert.equal(textOf(record), undefined, JSON.stringify(record));
    }
  });
});

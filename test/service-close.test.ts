import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { collections } from "../src/domain/records/collections.ts";
import { createFormService } from "../src/index.ts";
import { textField } from "./form-fixture.ts";
import { heldStore } from "./held-store.ts";
import { formInput, request, type TestUser } from "./helpers.ts";

describe("service.close", () => {
  it("finishes the requests in flight, refuses later ones with 503, then closes the store", async () => {
    const inner = createMemoryStore();
    const held = heldStore(inner);
    const service = createFormService({ store: held.store, webhookPollMs: 0 });
    const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
    const form = await request(service, "POST", "/api/restricted/form", {
      as: alice,
      body: formInput("Contact", [textField]),
    });
    const submit = (name: string) =>
      request(service, "POST", `/api/form/${form.body.id}/submission`, {
        body: { form_fields: [{ unique_system_name: "gpi_1", submitted_value: name }] },
      });
    const hold = held.hold({ method: "create", collection: collections.submissions });
    const inFlight = submit("Ada");
    await hold.reached;

    const closing = service.close();
    const refused = await submit("Bob");
    assert.equal(refused.status, 503);
    assert.deepEqual(refused.body, {
      id: "",
      message: "The service is stopping; nothing was changed. Try again shortly",
      action_successful: false,
      error: "service_unavailable",
      actionSuccessful: false,
    });
    const listed = await request(service, "GET", "/api/restricted/user/form", { as: alice });
    assert.equal(listed.status, 503);
    assert.equal(listed.body.error, "service_unavailable");
    assert.equal(listed.body.actionSuccessful, undefined, "only S2 answers in camel case");
    await setImmediate();
    assert.equal(held.closed(), false, "the store stays open while a request is in flight");

    hold.release();
    const answered = await inFlight;
    assert.equal(answered.status, 200);
    await closing;
    assert.equal(held.closed(), true);
    assert.deepEqual(held.lateCalls, []);
    const stored = await inner.query<{ id: string }>(collections.submissions, form.body.id, {});
    assert.deepEqual(
      stored.items.map((s) => s.record.id),
      [answered.body.id],
    );
  });

  it("closes at once when nothing is in flight", async () => {
    const held = heldStore(createMemoryStore());
    const service = createFormService({ store: held.store, webhookPollMs: 0 });
    await service.close();
    assert.equal(held.closed(), true);
    const after = await request(service, "GET", "/openapi.json");
    assert.equal(after.status, 503);
  });
});

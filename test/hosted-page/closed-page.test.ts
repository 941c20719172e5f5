import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch, formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { settingsPath } from "./fixture.ts";

const fields = [{ unique_system_name: "name_1", type: "text", label: "Name", required: false }];

async function world(store: Store) {
  const clock = { now: new Date("2026-11-01T10:00:00.000Z") };
  const service = createFormService({
    store: serviceQueriesOnly(store),
    now: () => clock.now,
    sweepIntervalMs: 0,
  });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const created = await request(service, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Raffle", fields),
  });
  const formId: string = created.body.id;
  const limits = (body: unknown) =>
    request(service, "POST", settingsPath(formId, "quantitylimitsettings"), { as: alice, body });
  const post = () =>
    request(service, "POST", `/api/form/${formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] },
    });
  const page = async () => {
    const answer = await conformingFetch(service)(new Request(`http://localhost/f/${formId}`));
    return { status: answer.status, text: await answer.text() };
  };
  return { service, formId, clock, limits, post, page };
}

/** The closed page: the form's name, S2's sentence, and nothing to fill in or run. */
function assertClosed(answer: { status: number; text: string }, sentence: string) {
  assert.equal(answer.status, 200);
  assert.ok(
    answer.text.includes(`<h1>Raffle</h1>\n<p class="notice" id="closed-notice">${sentence}.</p>`),
    answer.text,
  );
  assert.ok(!/<form|<input|<script|name_1/.test(answer.text), answer.text);
}

describe("hosted form page (extension): a form that takes no more posts", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`says so at closes_at_utc and at max_total_submissions, as S2 does (${name})`, async () => {
      const env = await world(await open());
      const set = await env.limits({
        closes_at_utc: "2026-11-02T00:00:00.000Z",
        max_total_submissions: 2,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.match((await env.page()).text, /<form id="formwork-form"/);
      assert.equal((await env.post()).status, 200);
      assert.match((await env.page()).text, /<form id="formwork-form"/);
      assert.equal((await env.post()).status, 200);
      const full = await env.post();
      assert.equal(full.status, 403);
      assert.equal(full.body.message, "This form has received all the submissions it takes");
      assertClosed(await env.page(), full.body.message);

      // Past the date, S2 says that first, and so does the page.
      env.clock.now = new Date("2026-11-02T00:00:00.000Z");
      const late = await env.post();
      assert.equal(late.body.message, "This form is closed to new submissions");
      assertClosed(await env.page(), late.body.message);

      // Open again: a later date and a higher limit bring the form back.
      const reopened = await env.limits({
        closes_at_utc: "2027-01-01T00:00:00.000Z",
        max_total_submissions: 3,
      });
      assert.equal(reopened.status, 200);
      assert.match((await env.page()).text, /<form id="formwork-form"/);
    });
  }
});

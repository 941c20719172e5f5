/**
 * Hidden fields and the fields the hosted page may prefill (docs/design.md §5, §11, §21): F1
 * and F2 accept the `hidden` type and `generalsettings.prefill_fields` and refuse bad ones
 * with 400, F5 gives the prefill list leniently, and S2 checks a hidden field's value like a
 * text field's and stores it for S1, S5 and the export, on every store.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch, formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { openStore, storeKinds } from "../store-kinds.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true, max_length: 40 },
  {
    unique_system_name: "campaign_2",
    type: "hidden",
    label: "Campaign",
    max_length: 10,
    default_value: "direct",
  },
  { unique_system_name: "size_3", type: "select", label: "Size", options: ["S", "M"] },
  { unique_system_name: "cv_4", type: "file", label: "CV" },
];

async function world(store: Store) {
  const service = createFormService({ store: serviceQueriesOnly(store), sweepIntervalMs: 0 });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const call = (method: string, path: string, body?: unknown, as: TestUser | null = alice) =>
    request(service, method, path, { as: as ?? undefined, body });
  const created = await call("POST", "/api/restricted/form", formInput("Signup", fields));
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const formId: string = created.body.id;
  const general = (body: unknown) =>
    call(
      "POST",
      `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=generalsettings`,
      body,
    );
  const post = (values: Record<string, string>) =>
    call(
      "POST",
      `/api/form/${formId}/submission`,
      {
        form_fields: Object.entries(values).map(([name, value]) => ({
          unique_system_name: name,
          submitted_value: value,
        })),
      },
      null,
    );
  return { service, alice, call, formId, general, post };
}

const failed = (message: string, issues: { path: string; message: string }[]) => ({
  id: "",
  message,
  action_successful: false,
  error: "validation_failed",
  issues,
});

describe("hidden fields and prefill_fields", () => {
  it("F1 refuses a hidden field whose default is longer than its max_length, or not text", async () => {
    const { call } = await world(await openStore("memory"));
    const long = { ...fields[1], default_value: "much too long" };
    const refused = await call("POST", "/api/restricted/form", formInput("Signup", [long]));
    assert.equal(refused.status, 400);
    assert.deepEqual(
      refused.body,
      failed("The form definition is not valid", [
        {
          path: "form_definition.pages.0.fields.0.default_value",
          message: "must be at most 10 characters",
        },
      ]),
    );
    const numeric = { ...fields[1], default_value: 7 };
    const wrong = await call("POST", "/api/restricted/form", formInput("Signup", [numeric]));
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, "validation_failed");
    assert.equal(wrong.body.issues[0].path, "form_definition.pages.0.fields.0.default_value");
  });

  it("F2 refuses prefill_fields naming no field, a file field, a name twice, or not a list", async () => {
    const { general } = await world(await openStore("memory"));
    const refused = await general({ prefill_fields: ["name_1", "nope_9", "cv_4", "name_1"] });
    assert.equal(refused.status, 400);
    assert.deepEqual(
      refused.body,
      failed("The generalsettings body does not fit the form", [
        { path: "prefill_fields.1", message: "nope_9 is not a field of this form" },
        { path: "prefill_fields.2", message: "cv_4 is a file field, which cannot be prefilled" },
        { path: "prefill_fields.3", message: "names name_1 more than once" },
      ]),
    );
    for (const bad of ["name_1", [""], [3]]) {
      const answer = await general({ prefill_fields: bad });
      assert.equal(answer.status, 400, JSON.stringify(bad));
      assert.equal(answer.body.error, "validation_failed");
      assert.match(answer.body.issues[0].path, /^prefill_fields/);
    }
  });

  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`F5 gives prefill_fields, leaving out a field since removed (${name})`, async () => {
      const { call, formId, general } = await world(await open());
      const plain = await call("GET", `/api/form/${formId}`, undefined, null);
      assert.equal(plain.status, 200);
      assert.equal(plain.body.form_configuration.settings.prefill_fields, undefined);
      assert.deepEqual(plain.body.form_definition.pages[0].fields[1], {
        ...fields[1],
        required: false,
      });

      const set = await general({ prefill_fields: ["name_1", "campaign_2", "size_3"] });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const rendered = await call("GET", `/api/form/${formId}`, undefined, null);
      assert.deepEqual(rendered.body.form_configuration.settings.prefill_fields, [
        "name_1",
        "campaign_2",
        "size_3",
      ]);
      // F4's summary is unchanged.
      const listed = await call("GET", "/api/restricted/user/form");
      assert.equal(listed.body.results[0].form_configuration.settings.prefill_fields, undefined);

      // A whole update that removes a named field is accepted; F5 leaves the name out.
      const replaced = await call(
        "POST",
        `/api/restricted/form/${formId}/`,
        formInput("Signup", [fields[0], fields[2]]),
      );
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      const later = await call("GET", `/api/form/${formId}`, undefined, null);
      assert.deepEqual(later.body.form_configuration.settings.prefill_fields, ["name_1", "size_3"]);
    });

    it(`S2 stores a hidden field's value, refuses one too long, and S1, S5 and the export show it (${name})`, async () => {
      const { service, alice, call, formId, post } = await world(await open());
      const tooLong = await post({ name_1: "Ada", campaign_2: "spring-sale-2026" });
      assert.equal(tooLong.status, 400);
      assert.deepEqual(tooLong.body.issues, [
        { path: "campaign_2", message: "must be at most 10 characters" },
      ]);

      const posted = await post({ name_1: "Ada", campaign_2: "spring" });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const expected = [
        { unique_system_name: "name_1", submitted_value: "Ada" },
        { unique_system_name: "campaign_2", submitted_value: "spring" },
      ];
      const one = await call("GET", `/api/restricted/form/${formId}/submission/${posted.body.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.form_submission.form_fields, expected);
      const listed = await call("GET", `/api/restricted/form/${formId}/submissions`);
      assert.deepEqual(listed.body.results[0].form_fields, expected);

      const headers = { TokenId: alice.token_id, TokenSecret: alice.token_secret };
      const exported = await conformingFetch(service)(
        new Request(`http://localhost/api/restricted/form/${formId}/submissions/export`, {
          headers,
        }),
      );
      assert.equal(exported.status, 200);
      const lines = (await exported.text())
        .replace(/^\ufeff/, "")
        .trim()
        .split("\r\n");
      assert.equal(lines[0], "id,created_date_utc,is_draft_submission,Name,Campaign,Size,CV");
      assert.match(lines[1] ?? "", /,false,Ada,spring,,$/);
    });
  }
});

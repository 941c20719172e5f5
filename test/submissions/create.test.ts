import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { submit, upload, withFiles } from "./setup.ts";

const settings = (formId: string, section: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;

const complete = {
  name_1: "Ada Lovelace",
  about_2: "Writes programs",
  email_3: "ada@example.com",
  age_4: "36",
  born_5: "1815-12-10",
  size_6: "M",
  tone_7: "warm",
  likes_8: "a|c",
};

describe("S2 create a submission", () => {
  it("stores every field type and answers the inline thanks page", async () => {
    const env = await withFiles();
    const { status, body } = await submit(env, complete);
    assert.equal(status, 200);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...body, id: "" },
      {
        id: "",
        message: "Submission posted successfully",
        thanks_behaviour: "inline_message",
        thanks_behaviour_message: "Thank you for your submission",
        thanks_behaviour_redirect_parent_page: false,
        cloud_database_post_expected_but_failed: false,
        email_address_post_expected_but_failed: false,
        actionSuccessful: true,
      },
    );
    const read = await env.call("GET", `/api/restricted/form/${env.formId}/submission/${body.id}`, {
      as: env.alice,
    });
    assert.equal(read.status, 200);
    const stored = read.body.form_submission;
    assert.equal(stored.form_id, env.formId);
    assert.equal(stored.stale_form_name, "Job application");
    assert.equal(stored.is_draft_submission, false);
    assert.equal(stored.created_by_verified_email_address, "");
    assert.equal(stored.modified_date_utc, "0001-01-01T00:00:00");
    assert.equal(stored.search_words, undefined);
    assert.deepEqual(
      stored.form_fields.map((f: { unique_system_name: string }) => f.unique_system_name),
      Object.keys(complete),
    );
    assert.equal(read.body.user_has_edit_submission_access, true);
  });

  it("keeps the caller's e-mail, the device and the country from the lookup", async () => {
    const env = await withFiles({ trustProxy: true, countryOf: () => "NZ" });
    const { body } = await env.call("POST", `/api/form/${env.formId}/submission`, {
      as: env.alice,
      headers: { "X-Forwarded-For": "203.0.113.9, 10.0.0.1" },
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] },
    });
    const list = await env.call("GET", `/api/restricted/form/${env.formId}/submissions`, {
      as: env.alice,
    });
    const [stored] = list.body.results;
    assert.equal(stored.id, body.id);
    assert.equal(stored.created_by_verified_email_address, "alice@example.com");
    assert.deepEqual(stored.created_by_device, {
      client_ip_address: "203.0.113.9",
      client_ip_country_code: "NZ",
    });
    assert.deepEqual(stored.search_words, ["ada"]);
  });

  it("answers the redirect of thankspagesettings with its parameters", async () => {
    const env = await withFiles();
    const thanks = {
      thanks_behaviour: "url_redirect",
      thanks_behaviour_redirect_url: "https://example.com/thanks",
      thanks_behaviour_redirect_parent_page: true,
      thanks_behaviour_redirect_url_params: [
        { param_name: "who", param_value_form_field_system_name: "name_1" },
        { param_name: "src", param_value_fixed: "form" },
      ],
    };
    const set = await env.call("POST", settings(env.formId, "thankspagesettings"), {
      as: env.alice,
      body: thanks,
    });
    assert.equal(set.status, 200);
    const { body } = await submit(env, { name_1: "Ada" });
    assert.equal(body.thanks_behaviour, "url_redirect");
    assert.equal(body.thanks_behaviour_redirect_url, "https://example.com/thanks");
    assert.equal(body.thanks_behaviour_redirect_parent_page, true);
    assert.equal(body.thanks_behaviour_message, undefined);
    assert.deepEqual(body.thanks_behaviour_redirect_url_params, [
      { param_name: "who", param_value_form_field_system_name: "name_1", param_value_fixed: "" },
      { param_name: "src", param_value_form_field_system_name: "", param_value_fixed: "form" },
    ]);
  });

  it("refuses values that do not fit the definition, naming each field, and stores nothing", async () => {
    const env = await withFiles();
    const { status, body } = await submit(env, {
      name_1: "x".repeat(21),
      email_3: "not an address",
      age_4: "131",
      born_5: "2026-02-30",
      size_6: "XL",
      tone_7: "",
      likes_8: "a|a",
      cv_9: "not-an-id",
      nope_99: "?",
    });
    assert.equal(status, 400);
    assert.equal(body.error, "validation_failed");
    assert.equal(body.action_successful, false);
    assert.equal(body.actionSuccessful, false);
    assert.deepEqual(body.issues.map((issue: { path: string }) => issue.path).sort(), [
      "age_4",
      "born_5",
      "cv_9",
      "email_3",
      "likes_8",
      "name_1",
      "nope_99",
      "size_6",
    ]);
    const list = await env.call("GET", `/api/restricted/form/${env.formId}/submissions`, {
      as: env.alice,
    });
    assert.deepEqual(list.body.results, []);
  });

  it("requires required fields except in drafts", async () => {
    const env = await withFiles();
    const missing = await submit(env, { about_2: "hi" });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.issues, [{ path: "name_1", message: "is required" }]);
    const draft = await submit(env, { about_2: "hi" }, { draft: true });
    assert.equal(draft.status, 200);
  });

  it("refuses malformed bodies with 400 and wrong content types with 415", async () => {
    const env = await withFiles();
    const path = `/api/form/${env.formId}/submission`;
    const broken = await env.call("POST", path, {
      body: "{",
      headers: { "content-type": "application/json" },
    });
    assert.equal(broken.status, 400);
    assert.equal(broken.body.actionSuccessful, false);
    const numbers = await env.call("POST", path, {
      body: { form_fields: [{ unique_system_name: "age_4", submitted_value: 3 }] },
    });
    assert.equal(numbers.status, 400);
    const text = await env.call("POST", path, {
      body: "name_1=x",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(text.status, 415);
    const notGuid = await env.call("POST", "/api/form/not-a-guid/submission", { body: {} });
    assert.equal(notGuid.status, 400);
    const unknown = await env.call(
      "POST",
      "/api/form/00000000-0000-0000-0000-000000000000/submission",
      { body: { form_fields: [] } },
    );
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.actionSuccessful, false);
  });

  it("refuses a disabled form, a closed one and one that is full", async () => {
    const env = await withFiles();
    const set = (section: string, body: unknown) =>
      env.call("POST", settings(env.formId, section), { as: env.alice, body });
    await set("generalsettings", { is_disabled: true });
    const disabled = await submit(env, { name_1: "Ada" });
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.error, "form_disabled");
    await set("generalsettings", { is_disabled: false });
    await set("quantitylimitsettings", { closes_at_utc: "2026-11-01T09:00:00Z" });
    const closed = await submit(env, { name_1: "Ada" });
    assert.equal(closed.status, 403);
    assert.equal(closed.body.error, "form_closed");
    await set("quantitylimitsettings", { max_total_submissions: 2 });
    assert.equal((await submit(env, { name_1: "Ada" })).status, 200);
    assert.equal((await submit(env, { name_1: "Bob" })).status, 200);
    const full = await submit(env, { name_1: "Cy" });
    assert.equal(full.status, 403);
    assert.equal(full.body.error, "form_closed");
  });

  it("stores exactly max_total_submissions under concurrent posts", async () => {
    const env = await withFiles();
    await env.call("POST", settings(env.formId, "quantitylimitsettings"), {
      as: env.alice,
      body: { max_total_submissions: 5 },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => submit(env, { name_1: `n${n}` })),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 5);
    const list = await env.call("GET", `/api/restricted/form/${env.formId}/submissions`, {
      as: env.alice,
    });
    assert.equal(list.body.results.length, 5);
  });

  it("asks anonymous callers to sign in when the form requires login", async () => {
    const env = await withFiles();
    await env.call("POST", settings(env.formId, "securitysettings"), {
      as: env.alice,
      body: { requires_login: true },
    });
    assert.equal((await submit(env, { name_1: "Ada" })).status, 401);
    const bob = await env.user("bob@example.com");
    assert.equal((await submit(env, { name_1: "Ada" }, { as: bob })).status, 404);
    assert.equal((await submit(env, { name_1: "Ada" }, { as: env.alice })).status, 200);
  });

  it("accepts an option of a datalist-backed field and refuses others", async () => {
    const env = await withFiles();
    const list = await env.call("POST", "/api/restricted/datalist", {
      as: env.alice,
      body: { settings: { list_name: "Cities" } },
    });
    await env.call("POST", `/api/restricted/datalist/${list.body.id}/entry`, {
      as: env.alice,
      body: [{ entry_value: "Wellington" }, { entry_value: "Oslo" }],
    });
    const field = { unique_system_name: "city_1", type: "select", datalist_id: list.body.id };
    const replaced = await env.call("POST", `/api/restricted/form/${env.formId}`, {
      as: env.alice,
      body: {
        form_configuration: { settings: { form_name: "Cities", form_type: "classicsingle" } },
        form_definition: { pages: [{ fields: [field] }] },
      },
    });
    assert.equal(replaced.status, 200);
    assert.equal((await submit(env, { city_1: "Oslo" })).status, 200);
    const wrong = await submit(env, { city_1: "Paris" });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.issues[0].path, "city_1");
  });

  it("takes a file only once, only for its own field and form", async () => {
    const env = await withFiles();
    const file = await upload(env, {});
    assert.equal(file.status, 200);
    const first = await submit(env, { name_1: "Ada", cv_9: file.body.id });
    assert.equal(first.status, 200);
    const again = await submit(env, { name_1: "Bob", cv_9: file.body.id });
    assert.equal(again.status, 400);
    assert.equal(again.body.issues[0].path, "cv_9");
    const other = await env.call("POST", "/api/restricted/form", {
      as: env.alice,
      body: {
        form_configuration: { settings: { form_name: "Other", form_type: "classicsingle" } },
        form_definition: { pages: [{ fields: [{ unique_system_name: "cv_9", type: "file" }] }] },
      },
    });
    const foreign = await upload(env, {}, { formId: other.body.id });
    const stolen = await submit(env, { name_1: "Cy", cv_9: foreign.body.id });
    assert.equal(stolen.status, 400);
    const racing = await upload(env, {});
    const race = await Promise.all([
      submit(env, { name_1: "D", cv_9: racing.body.id }),
      submit(env, { name_1: "E", cv_9: racing.body.id }),
    ]);
    assert.deepEqual(race.map((r) => r.status).sort(), [200, 400]);
  });
});

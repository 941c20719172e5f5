/**
 * The service on Cosmos DB and Azure Blob Storage (their emulators), end to end: a path
 * through every section of the interface (admin, datalists, forms, form users, submissions,
 * webhooks, partners), with an upload downloaded through a real SAS link that Azurite
 * checks, and a webhook delivered from the outbox kept in Cosmos DB.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput, type TestUser } from "../helpers.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { adminSecret, startAzureService, submission, uploadFile } from "./azure-service.ts";

// The webhook worker runs, polling the outbox on Cosmos DB, and may post to loopback.
const env = await startAzureService({
  webhookPollMs: 100,
  allowPrivateWebhookDestinations: true,
  partners: { tokenSecret: "a customer token key of thirty-two bytes or more" },
});
const { call, azurite } = env;
const restricted = (formId: string) => `/api/restricted/form/${formId}`;
const settings = (formId: string, section: string) =>
  `${restricted(formId)}/?updateSettingsOnly=1&settingsSection=${section}`;
const post = (formId: string, values: Record<string, string>) =>
  call("POST", `/api/form/${formId}/submission`, { body: submission(values) });

/** D1, D5, D6, D7, D4: a datalist of two colours. @returns its id. */
async function datalistSection(alice: TestUser): Promise<string> {
  const settings = { list_name: "Colours", list_description: "", list_type: "alphanumeric" };
  const list = await call("POST", "/api/restricted/datalist", { as: alice, body: { settings } });
  assert.equal(list.status, 200);
  const datalist = `/api/restricted/datalist/${list.body.id}`;
  const entries = await call("POST", `${datalist}/entry`, {
    as: alice,
    body: [{ entry_value: "red" }, { entry_value: "green" }, { entry_value: "blue" }],
  });
  assert.equal(entries.body.length, 3);
  const removed = await call("DELETE", `${datalist}/entry/${entries.body[2]}`, { as: alice });
  assert.equal(removed.body.datalist_entry_deleted, true);
  const listed = await call("GET", `${datalist}/entries`, { as: alice });
  const values = listed.body.results.map((e: { entry_value: string }) => e.entry_value);
  assert.deepEqual(values, ["red", "green"]);
  const mine = await call("GET", "/api/restricted/user/datalist", { as: alice });
  assert.deepEqual(mine.body.accessible_datalist_ids_edit_access, [list.body.id]);
  return list.body.id;
}

/** Form create, F2, F5, then U2, U1 and F4 for a collaborator. @returns the form id. */
async function formSection(alice: TestUser, bob: TestUser, datalistId: string) {
  const created = await call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Job application", [
      { unique_system_name: "name_1", type: "text", label: "Name", required: true },
      { unique_system_name: "colour_2", type: "select", label: "Colour", datalist_id: datalistId },
      { unique_system_name: "cv_3", type: "file", label: "CV", max_files: 1 },
    ]),
  });
  assert.equal(created.status, 200);
  const formId: string = created.body.id;
  const thanks = { thanks_behaviour: "inline_message", thanks_behaviour_message: "Merci" };
  const updated = await call("POST", settings(formId, "thankspagesettings"), {
    as: alice,
    body: thanks,
  });
  assert.equal(updated.body.message, "Form updated successfully");
  const rendered = await call("GET", `/api/form/${formId}`);
  assert.equal(rendered.body.form_definition.pages[0].fields.length, 3);
  const grant = `${restricted(formId)}/usersecurity?collaborator_email=${bob.email}&has_reporting_full=1`;
  const granted = await call("POST", grant, { as: alice });
  assert.equal(granted.body.message, "Form collaborator added successfully");
  const users = await call("GET", `${restricted(formId)}/usersecurity`, { as: alice });
  const emails = users.body.results.map(
    (r: { granted_to_email_address?: string }) => r.granted_to_email_address,
  );
  assert.ok(emails.includes(bob.email));
  const bobsForms = await call("GET", "/api/restricted/user/form", { as: bob });
  assert.deepEqual(bobsForms.body.accessible_form_ids_full_reporting_access, [formId]);
  return formId;
}

/** S3, S2, S1 and S4, the files fetched from Azurite. @returns the submission and file ids. */
async function submissionSection(bob: TestUser, formId: string) {
  const part = { field: "cv_3", bytes: "curriculum vitae", filename: "my cv.txt" };
  const uploaded = await uploadFile(env.service, formId, part);
  assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
  const fileId: string = uploaded.body.id;
  assert.equal((await post(formId, { name_1: "Ada", colour_2: "purple" })).status, 400);
  const posted = await post(formId, { name_1: "Ada", colour_2: "red", cv_3: fileId });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  assert.equal(posted.body.thanks_behaviour_message, "Merci");
  const read = await call("GET", `${restricted(formId)}/submission/${posted.body.id}`, { as: bob });
  const [detail] = read.body.attachment_details;
  assert.match(detail.attachment_sas_uri, /^\?sv=[^&]+&se=[^&]+&sr=b&sp=r&sig=[^&]+$/);
  const blobUrl = `${azurite.blobEndpoint}/${formId}/${fileId}`;
  assert.equal(await (await fetch(blobUrl + detail.attachment_sas_uri)).text(), part.bytes);
  const link = await call("GET", `${restricted(formId)}/submissionattachment/${fileId}`, {
    as: bob,
  });
  assert.equal(link.body.message, "Temporary link to file");
  assert.ok(link.body.id.startsWith(`${blobUrl}?sv=`), link.body.id);
  const file = await fetch(link.body.id);
  assert.equal(await file.text(), part.bytes);
  assert.match(file.headers.get("content-disposition") ?? "", /^attachment; filename="my cv.txt"/);
  const tampered = new URL(link.body.id);
  const sig = tampered.searchParams.get("sig") ?? "";
  tampered.searchParams.set("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
  const refused = await fetch(tampered);
  assert.equal(refused.status, 403);
  await refused.arrayBuffer();
  return { submissionId: posted.body.id as string, fileId, link: link.body.id as string };
}

/** S5 in pages of two, in creation order, with the container SAS. @returns ids seen. */
async function listSection(bob: TestUser, formId: string, fileId: string): Promise<string[]> {
  const seen: string[] = [];
  let token: string | null = null;
  do {
    const next: string = token ? `&continuationToken=${encodeURIComponent(token)}` : "";
    const page = await call("GET", `${restricted(formId)}/submissions?batchSize=2${next}`, {
      as: bob,
    });
    assert.equal(page.status, 200);
    const viaContainer = await fetch(
      `${azurite.blobEndpoint}/${formId}/${fileId}${page.body.container_sas_uri}`,
    );
    assert.equal(viaContainer.status, 200);
    await viaContainer.arrayBuffer();
    seen.push(...page.body.results.map((r: { id: string }) => r.id));
    token = page.body.continuation_token;
  } while (token);
  return seen;
}

describe("the service on Cosmos DB and Azure Blob Storage", () => {
  it("serves accounts, datalists, forms, form users and submissions with real SAS links", async () => {
    const alice = await env.account("alice@example.com");
    const bob = await env.account("bob@example.com");
    const formId = await formSection(alice, bob, await datalistSection(alice));
    const { submissionId, fileId, link } = await submissionSection(bob, formId);
    const ids = [submissionId];
    for (const name of ["Grace", "Edsger", "Barbara"]) {
      ids.push((await post(formId, { name_1: name, colour_2: "green" })).body.id);
    }
    assert.deepEqual(await listSection(bob, formId, fileId), ids);
    // S7 removes the submission and its file: the link now finds nothing in Azure.
    const path = `${restricted(formId)}/submission/${submissionId}`;
    const deleted = await call("DELETE", path, { as: alice });
    assert.equal(deleted.body.form_submission_item_deleted, true);
    assert.equal((await call("GET", path, { as: alice })).status, 404);
    const gone = await fetch(link);
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  });

  it("lets exactly the allowed number of concurrent submissions in, losing none", async () => {
    const owner = await env.account("owner@example.com");
    const fields = [{ unique_system_name: "name_1", type: "text", label: "Name", required: true }];
    const created = await call("POST", "/api/restricted/form", {
      as: owner,
      body: formInput("Limited", fields),
    });
    const formId: string = created.body.id;
    const limit = await call("POST", settings(formId, "quantitylimitsettings"), {
      as: owner,
      body: { max_total_submissions: 4 },
    });
    assert.equal(limit.status, 200);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) => post(formId, { name_1: `person ${n}` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, 200, 403, 403, 403, 403, 403, 403]);
    const listed = await call("GET", `${restricted(formId)}/submissions`, { as: owner });
    const accepted = answers.filter((a) => a.status === 200).map((a) => a.body.id);
    assert.deepEqual(listed.body.results.map((r: { id: string }) => r.id).sort(), accepted.sort());
  });

  it("delivers a submission webhook through the outbox kept in Cosmos DB", async () => {
    const receiver = await startReceiver();
    const owner = await env.account("hooks@example.com");
    const fields = [{ unique_system_name: "name_1", type: "text", label: "Name" }];
    const created = await call("POST", "/api/restricted/form", {
      as: owner,
      body: formInput("Hooked", fields),
    });
    const hooks = `${restricted(created.body.id)}/submissionwebhook`;
    const hook = await call("POST", hooks, {
      as: owner,
      body: { webhook_name: "receiver", webhook_destination_url: receiver.url },
    });
    assert.equal(hook.body.message, "Form submission webhook added successfully");
    const listed = await call("GET", hooks, { as: owner });
    assert.deepEqual(
      listed.body.map((h: { id: string }) => h.id),
      [hook.body.id],
    );
    const posted = await post(created.body.id, { name_1: "Hooked on you" });
    assert.equal(posted.status, 200);
    await receiver.waitFor(1);
    const message = receiver.received[0]?.body;
    assert.equal(JSON.parse(message ?? "{}").data.form_submission.id, posted.body.id);
    const removed = await call("DELETE", `${hooks}/${hook.body.id}`, { as: owner });
    assert.equal(removed.body.message, "Form submission webhook removed successfully");
  });

  it("serves a partner's customers, and calls on their behalf", async () => {
    const partner = await call("POST", "/api/admin/partners", {
      headers: { AdminSecret: adminSecret },
      body: { name: "Acme" },
    });
    assert.equal(partner.status, 200);
    const headers = {
      PartnerId: partner.body.partner_id,
      PartnerSecret: partner.body.partner_secret,
    };
    const customer = {
      email: "carla@example.com",
      first_name: "Carla",
      last_name: "Customer",
      subscription_status: "paying_customer",
      monthly_form_submissions_quota: 100,
      total_forms_quota: 2,
    };
    const added = await call("POST", "/api/restricted/partner/user", { headers, body: customer });
    assert.equal(added.body.message, "User added successfully");
    const updated = await call("POST", `/api/restricted/partner/user/${customer.email}`, {
      headers,
      body: { first_name: "Carlotta" },
    });
    assert.equal(updated.body.message, "User updated");
    const customers = await call("GET", "/api/restricted/partner/users", { headers });
    assert.deepEqual(
      customers.body.map((c: { first_name: string }) => c.first_name),
      ["Carlotta"],
    );
    const login = await call("POST", "/api/restricted/partner/userauth", {
      headers: { ...headers, PartnerCustomerEmail: customer.email },
    });
    const onBehalf = {
      headers: { Authorization: `Bearer ${login.body.message}` },
    };
    const account = `partnerAccountId=${partner.body.partner_id}`;
    const created = await call("POST", `/api/restricted/form?${account}`, {
      ...onBehalf,
      body: formInput("Carla's form"),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const forms = await call("GET", `/api/restricted/user/form?${account}`, onBehalf);
    assert.deepEqual(forms.body.accessible_form_ids_edit_access, [created.body.id]);
  });

  it("lists accounts and tokens, and revokes a token, from the admin API's list partitions", async () => {
    const admin = { headers: { AdminSecret: adminSecret } };
    const dora = await env.account("dora@example.com");
    const accounts = await call("GET", "/api/admin/accounts", admin);
    assert.ok(accounts.body.some((a: { user_id: string }) => a.user_id === dora.user_id));
    const tokens = `/api/admin/accounts/${encodeURIComponent(dora.user_id)}/tokens`;
    const second = await call("POST", tokens, admin);
    const listed = await call("GET", tokens, admin);
    assert.deepEqual(
      listed.body.map((t: { token_id: string }) => t.token_id),
      [dora.token_id, second.body.token_id],
    );
    const revoked = await call("DELETE", `/api/admin/tokens/${dora.token_id}`, admin);
    assert.equal(revoked.status, 200);
    const path = "/api/restricted/user/form";
    assert.equal((await call("GET", path, { as: dora })).status, 401);
    assert.equal((await call("GET", path, { as: { ...dora, ...second.body } })).status, 200);
    assert.equal((await call("GET", tokens, admin)).body.length, 1);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput } from "../helpers.ts";
import { customerBody, partnerCalls, withPartner } from "./setup.ts";

const grantee = "newhire@corp.example";
const grant = (formId: string) =>
  `/api/restricted/form/${formId}/usersecurity?collaborator_email=${grantee}&has_reporting_full=1&has_form_editor=1`;

describe("grants stay within the owner's tenant (docs/design.md §3)", () => {
  it("gives a partner's customer nothing from a local owner's grant to its address", async () => {
    const env = await withPartner();
    const owner = await env.user("owner@example.com");
    const form = await env.call("POST", "/api/restricted/form", { as: owner, body: formInput() });
    // The grant exists before the customer does, as an attacker would find it.
    assert.equal((await env.call("POST", grant(form.body.id), { as: owner })).status, 200);
    await env.addCustomer(customerBody(grantee));
    const jwt = await env.login(grantee);
    for (const path of [
      `/api/restricted/form/${form.body.id}/submissions`,
      `/api/restricted/form/${form.body.id}/usersecurity`,
      `/api/restricted/form/${form.body.id}/submissionwebhook`,
    ]) {
      const answer = await env.asCustomer(jwt, "GET", path);
      assert.equal(answer.status, 404, path);
    }
    const listed = await env.asCustomer(jwt, "GET", "/api/restricted/user/form");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.results, []);
    assert.deepEqual(listed.body.accessible_form_ids_full_reporting_access, []);
    const edit = await env.asCustomer(
      jwt,
      "POST",
      `/api/restricted/form/${form.body.id}/?updateSettingsOnly=1&settingsSection=generalsettings`,
      { body: { form_name: "Taken over" } },
    );
    assert.equal(edit.status, 404);
  });

  it("gives a local account with the address what the local owner granted", async () => {
    const env = await withPartner();
    const owner = await env.user("owner@example.com");
    const form = await env.call("POST", "/api/restricted/form", { as: owner, body: formInput() });
    await env.call("POST", grant(form.body.id), { as: owner });
    const local = await env.user(grantee);
    const path = `/api/restricted/form/${form.body.id}/submissions`;
    assert.equal((await env.call("GET", path, { as: local })).status, 200);
  });

  it("keeps a customer's grant from another partner's customer with the address", async () => {
    const env = await withPartner();
    await env.addCustomer(customerBody("carla@example.com"));
    const carla = await env.login("carla@example.com");
    const form = await env.asCustomer(carla, "POST", "/api/restricted/form", { body: formInput() });
    assert.equal(form.status, 200, JSON.stringify(form.body));
    assert.equal((await env.asCustomer(carla, "POST", grant(form.body.id))).status, 200);
    const other = partnerCalls(env.call, await env.service.admin.createPartner({ name: "Q" }));
    await other.addCustomer(customerBody(grantee));
    const intruder = await other.login(grantee);
    const path = `/api/restricted/form/${form.body.id}/submissions`;
    assert.equal((await other.asCustomer(intruder, "GET", path)).status, 404);
  });
});

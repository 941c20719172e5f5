import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput, type Send } from "../helpers.ts";
import { customerBody, withPartner } from "./setup.ts";

const textField = { unique_system_name: "name_1", type: "text", label: "Name" };
const body = { form_fields: [{ unique_system_name: "name_1", submitted_value: "x" }] };

/**
 * A customer on `free_trial` with a form, and another customer of the same partner (grants
 * stay within a tenant, docs/design.md §3) granted roles on it.
 */
async function withTrialForm() {
  const env = await withPartner();
  await env.addCustomer({
    ...customerBody("carla@example.com"),
    subscription_status: "free_trial",
  });
  const jwt = await env.login("carla@example.com");
  const created = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
    body: formInput("Trial form", [textField]),
  });
  const formId: string = created.body.id;
  const grant = await env.asCustomer(
    jwt,
    "POST",
    `/api/restricted/form/${formId}/usersecurity?collaborator_email=rita@example.com&has_reporting_full=1&has_form_editor=1`,
  );
  assert.equal(grant.status, 200);
  await env.addCustomer(customerBody("rita@example.com"));
  const ritaJwt = await env.login("rita@example.com");
  const rita = (method: string, path: string, send: Send = {}) =>
    env.asCustomer(ritaJwt, method, path, send);
  const setStatus = async (subscription_status: string) => {
    const path = "/api/restricted/partner/user/carla@example.com";
    const answer = await env.asPartner("POST", path, { body: { subscription_status } });
    assert.equal(answer.status, 200);
  };
  return { ...env, jwt, formId, rita, setStatus };
}

describe("the paying rule", () => {
  it("keeps the forms of a customer who is not paying to that customer alone", async () => {
    const env = await withTrialForm();
    const { formId, rita } = env;
    const owner = await env.asCustomer(env.jwt, "POST", `/api/form/${formId}/submission`, { body });
    assert.equal(owner.status, 200);
    assert.equal((await env.asCustomer(env.jwt, "GET", `/api/form/${formId}`)).status, 200);
    const refused = [
      await env.call("GET", `/api/form/${formId}`),
      await env.call("POST", `/api/form/${formId}/submission`, { body }),
      await rita("GET", `/api/form/${formId}`),
      await rita("GET", `/api/restricted/form/${formId}/submissions`),
      await rita("POST", `/api/restricted/form/${formId}/clone`),
    ];
    for (const answer of refused) {
      assert.equal(answer.status, 404);
      assert.equal(answer.body.error, "not_found");
    }
    assert.equal(refused[1]?.body.actionSuccessful, false);
    const listed = await rita("GET", "/api/restricted/user/form");
    assert.deepEqual(listed.body.results, []);
    const submissions = `/api/restricted/form/${formId}/submissions`;
    assert.equal((await env.asCustomer(env.jwt, "GET", submissions)).body.results.length, 1);
  });

  it("opens the forms once the customer pays, and closes them again when not", async () => {
    const env = await withTrialForm();
    const { formId, rita } = env;
    await env.setStatus("paying_customer");
    assert.equal((await env.call("GET", `/api/form/${formId}`)).status, 200);
    assert.equal((await env.call("POST", `/api/form/${formId}/submission`, { body })).status, 200);
    const listed = await rita("GET", "/api/restricted/user/form");
    assert.deepEqual(
      listed.body.results.map((form: { id: string }) => form.id),
      [formId],
    );
    await env.setStatus("free_trial");
    assert.equal((await env.call("GET", `/api/form/${formId}`)).status, 404);
    const reports = await rita("GET", `/api/restricted/form/${formId}/submissions`);
    assert.equal(reports.status, 404);
  });
});

import assert from "node:assert/strict";
import { formInput, setup } from "./helpers.ts";

/** A required text field. */
export const textField = {
  unique_system_name: "gpi_1",
  type: "text",
  label: "Name",
  required: true,
};

/** A service with alice and her form. */
export async function withForm(fields: unknown[] = [textField]) {
  const env = await setup();
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Contact", fields),
  });
  assert.equal(created.status, 200);
  return { ...env, alice, formId: created.body.id as string };
}

/** Grants `flags` on the form to `email` and makes that account. */
export async function grant(
  env: Awaited<ReturnType<typeof withForm>>,
  email: string,
  flags: string,
) {
  const path = `/api/restricted/form/${env.formId}/usersecurity?collaborator_email=${email}&${flags}`;
  assert.equal((await env.call("POST", path, { as: env.alice })).status, 200);
  return env.user(email);
}

/** The F2 path of one settings section. */
export const settingsPath = (formId: string, section: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;

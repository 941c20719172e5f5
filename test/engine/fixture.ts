import assert from "node:assert/strict";
import type { FormServiceOptions } from "../../src/index.ts";
import { formInput, setup, type TestUser } from "../helpers.ts";

/** A form with a hidden-able field, a total, a cascading list and a limited option. */
export const engineFields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true },
  { unique_system_name: "guests_2", type: "number", label: "Guests", min: 0 },
  { unique_system_name: "diet_3", type: "text", label: "Diet", required: true },
  { unique_system_name: "price_4", type: "number", label: "Price" },
  { unique_system_name: "total_5", type: "number", label: "Total" },
  { unique_system_name: "country_6", type: "select", label: "Country", options: ["NZ", "FR"] },
  { unique_system_name: "city_7", type: "select", label: "City", options: ["Auckland", "Paris"] },
  { unique_system_name: "session_8", type: "radio", label: "Session", options: ["am", "pm"] },
  { unique_system_name: "email_9", type: "email", label: "E-mail" },
  { unique_system_name: "phone_10", type: "text", label: "Phone" },
];

/** The engine's sections for {@link engineFields}. */
export const engineSections = {
  conditionallogicsettings: {
    rules: [
      { fields: ["diet_3"], action: "show", when: { ">": [{ var: "guests_2" }, 0] } },
      { fields: ["phone_10"], action: "require", when: { "==": [{ var: "email_9" }, ""] } },
    ],
  },
  calculatedfieldsettings: {
    fields: [
      {
        unique_system_name: "total_5",
        expression: { "*": [{ var: "guests_2" }, { var: "price_4" }] },
      },
    ],
  },
  privatedatalistlogicsettings: {
    rules: [
      {
        unique_system_name: "city_7",
        depends_on: "country_6",
        options_by_value: { NZ: ["Auckland"], FR: ["Paris"] },
      },
    ],
  },
  quantitylimitsettings: {
    inventory: [{ unique_system_name: "session_8", option: "am", quantity: 2 }],
  },
};

/** The F2 path of one settings section. */
export const sectionPath = (formId: string, section: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;

/** A service (memory store unless given), alice, and her form with `sections` applied. */
export async function withEngineForm(
  sections: Record<string, unknown> = engineSections,
  options: Partial<FormServiceOptions> = {},
  fields: unknown[] = engineFields,
) {
  const env = await setup(options);
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Dinner", fields),
  });
  assert.equal(created.status, 200);
  const formId = created.body.id as string;
  for (const [section, body] of Object.entries(sections)) {
    const saved = await env.call("POST", sectionPath(formId, section), { as: alice, body });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  }
  const submit = (values: Record<string, string>, draft?: boolean, as?: TestUser) =>
    env.call("POST", `/api/form/${formId}/submission`, {
      as,
      body: {
        form_fields: Object.entries(values).map(([unique_system_name, submitted_value]) => ({
          unique_system_name,
          submitted_value,
        })),
        ...(draft === undefined ? {} : { is_draft_submission: draft }),
      },
    });
  const stored = async (id: string) => {
    const read = await env.call("GET", `/api/restricted/form/${formId}/submission/${id}`, {
      as: alice,
    });
    assert.equal(read.status, 200);
    const fields = read.body.form_submission.form_fields as {
      unique_system_name: string;
      submitted_value: string;
    }[];
    return Object.fromEntries(fields.map((f) => [f.unique_system_name, f.submitted_value]));
  };
  return { ...env, alice, formId, submit, stored };
}

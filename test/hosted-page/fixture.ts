import assert from "node:assert/strict";
import type { TestUser as Account } from "../helpers.ts";

/** Sends one request of the interface and reads its JSON answer. */
export type Call = (
  method: string,
  path: string,
  options?: { as?: Account; body?: unknown },
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
) => Promise<{ status: number; body: any }>;

/** Every field type of docs/design.md §5, with a select filled from a datalist. */
export function hostedFields(datalistId: string) {
  return [
    { unique_system_name: "name_1", type: "text", label: "Name", required: true, max_length: 40 },
    { unique_system_name: "about_2", type: "textarea", label: "About you" },
    { unique_system_name: "email_3", type: "email", label: "E-mail", required: true },
    { unique_system_name: "age_4", type: "number", label: "Age", min: 0, max: 130 },
    { unique_system_name: "born_5", type: "date", label: "Date of birth" },
    { unique_system_name: "size_6", type: "select", label: "Size", options: ["S", "M", "L"] },
    { unique_system_name: "city_7", type: "select", label: "City", datalist_id: datalistId },
    { unique_system_name: "tone_8", type: "radio", label: "Tone", options: ["warm", "cold"] },
    {
      unique_system_name: "likes_9",
      type: "checkbox",
      label: "Likes",
      required: true,
      options: ["tea", "coffee", "cocoa"],
    },
    {
      unique_system_name: "cv_10",
      type: "file",
      label: "CV",
      max_files: 2,
      max_file_size: 100_000,
      accept: [".txt", "image/png"],
    },
    {
      unique_system_name: "source_11",
      type: "hidden",
      label: "Source",
      max_length: 40,
      default_value: "newsletter",
    },
  ];
}

/** The interface path of one settings section of a form (F2). */
export const settingsPath = (formId: string, section: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;

/**
 * Creates a datalist of cities and a two-page form with every field type, owned by `owner`,
 * with the given thanks-page settings; `pages`, given, lays the fields out otherwise (a
 * function is given the fields).
 */
export async function createHostedForm(
  call: Call,
  owner: Account,
  thanks: Record<string, unknown> = {},
  pages?: unknown[] | ((fields: ReturnType<typeof hostedFields>) => unknown[]),
) {
  const list = await call("POST", "/api/restricted/datalist", {
    as: owner,
    body: { settings: { list_name: "Cities" } },
  });
  assert.equal(list.status, 200);
  const entries = await call("POST", `/api/restricted/datalist/${list.body.id}/entry`, {
    as: owner,
    body: [{ entry_value: "Auckland" }, { entry_value: "Wellington" }],
  });
  assert.equal(entries.status, 200);
  const fields = hostedFields(list.body.id);
  const form = await call("POST", "/api/restricted/form", {
    as: owner,
    body: {
      form_configuration: {
        settings: {
          form_name: "Job application",
          form_description: "Tell us about yourself.",
          form_type: "classicmulti",
        },
      },
      form_definition: {
        pages:
          typeof pages === "function"
            ? pages(fields)
            : (pages ?? [
                { title: "About you", fields: fields.slice(0, 5) },
                { title: "Preferences and files", fields: fields.slice(5) },
              ]),
      },
    },
  });
  assert.equal(form.status, 200, JSON.stringify(form.body));
  const formId: string = form.body.id;
  if (Object.keys(thanks).length > 0) {
    const set = await call("POST", settingsPath(formId, "thankspagesettings"), {
      as: owner,
      body: thanks,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
  }
  return { formId, datalistId: list.body.id as string };
}

/**
 * The respondent tests' forms (erasure, export, purge): Alice's three forms, each with an
 * e-mail field, and Ada's and Bob's submissions to them.
 */
import assert from "node:assert/strict";
import type { Store } from "../../src/ports/store.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { respondentWorld } from "./respondent-setup.ts";

export const allEvents = [
  "form_submission.created",
  "form_submission.updated",
  "form_submission.deleted",
];

export const applicationFields = [
  { unique_system_name: "name_1", type: "text", label: "Name" },
  { unique_system_name: "email_2", type: "email", label: "E-mail" },
  { unique_system_name: "cv_3", type: "file", label: "CV", max_files: 1, max_file_size: 1000 },
];
export const newsletterFields = [
  { unique_system_name: "contact_1", type: "email", label: "Contact" },
  { unique_system_name: "name_2", type: "text", label: "Name" },
];
export const teaFields = [
  { unique_system_name: "name_1", type: "text", label: "Name" },
  { unique_system_name: "to_2", type: "email", label: "Send the confirmation to" },
];

/** Alice's three forms, a webhook for every event on the first, and Ada's and Bob's posts. */
export async function threeForms(open: () => Promise<Store>) {
  const env = await respondentWorld(await open());
  const receiver = await startReceiver([200]);
  const alice = await env.user("alice@example.com");
  const apply = await env.newForm(alice, "Applications", applicationFields);
  const news = await env.newForm(alice, "Newsletter", newsletterFields);
  const tea = await env.newForm(alice, "Tea", teaFields);
  // No mailer: each confirmation is logged as refused, payload and all, in the form's log.
  await env.setSection(alice, tea, "confirmationemailsettings", {
    enabled: true,
    recipient_field: "to_2",
    subject: "Thanks {{name_1}}",
    body_text: "Hello {{name_1}}",
  });
  const hook = await env.call("POST", `/api/restricted/form/${apply}/submissionwebhook`, {
    as: alice,
    body: { webhook_name: "all", webhook_url: receiver.url, events: allEvents },
  });
  assert.equal(hook.status, 200);
  const file = await env.upload(apply, "cv_3");
  const ada = {
    apply: await env.submit(apply, { name_1: "Ada", email_2: "Ada@Example.com", cv_3: file }),
    news: await env.submit(news, { contact_1: "ADA@example.COM", name_2: "Ada" }),
    tea: await env.submit(tea, { name_1: "Ada", to_2: "ada@example.com" }),
  };
  const bob = {
    apply: await env.submit(apply, { name_1: "Bob", email_2: "bob@example.com" }),
    tea: await env.submit(tea, { name_1: "Bob", to_2: "bob@example.com" }),
  };
  await receiver.waitFor(2);
  return { ...env, receiver, alice, forms: { apply, news, tea }, file, ada, bob };
}

export const submissionPath = (formId: string, id: string) =>
  `/api/restricted/form/${formId}/submission/${id}`;

/** The submission count in each form's counter record. */
export async function countsOf(store: Store, formIds: string[]) {
  const counts: number[] = [];
  for (const formId of formIds) {
    const counter = await store.get<{ id: string; counts: Record<string, number> }>(
      "form_counters",
      formId,
      formId,
    );
    counts.push(counter?.record.counts.submissions ?? 0);
  }
  return counts;
}

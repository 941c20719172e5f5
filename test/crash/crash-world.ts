/**
 * What the exact crash tests set up through the HTTP API before the load:
 * an owner account's form and a partner customer's form, each with a text, an e-mail and a
 * file field, a webhook, a confirmation e-mail and a destination post; and the loopback
 * receivers those reach (webhooks, destination posts, an SMTP inbox).
 */
import assert from "node:assert/strict";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { settingsPath } from "../form-fixture.ts";
import { startInbox } from "../mail/smtp-inbox.ts";
import { adminHeaders, call, type Owned, partnerForm } from "../standalone/crash-fixture.ts";
import { startReceiver } from "../webhooks/receiver.ts";

/** The fields of both forms. */
export const fields = { name: "name_1", email: "email_2", file: "cv_3" } as const;

/** Largest file the load uploads; the field allows it. */
export const maxFileBytes = 8_000;

const formBody = (name: string) => ({
  form_configuration: { settings: { form_name: name, form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: fields.name, type: "text", label: "Name" },
          { unique_system_name: fields.email, type: "email", label: "E-mail" },
          {
            unique_system_name: fields.file,
            type: "file",
            label: "CV",
            max_files: 1,
            max_file_size: maxFileBytes,
          },
        ],
      },
    ],
  },
});

/** The loopback ends of every delivery the forms make; closed after the test. */
export async function startReceivers() {
  const [webhooks, destinations, inbox] = await Promise.all([
    startReceiver([200]),
    startReceiver([200]),
    startInbox(),
  ]);
  return { webhooks, destinations, inbox };
}

/** The running receivers. */
export type Receivers = Awaited<ReturnType<typeof startReceivers>>;

/** One form under load: who owns it and whether its owner has a storage quota. */
export interface LoadedForm extends Owned {
  /** `local` (an owner account) or `partner` (a partner customer with quotas). */
  kind: "local" | "partner";
}

/**
 * The owner's form and the partner customer's form, each with a webhook, a confirmation
 * e-mail and a destination post to `receivers`.
 */
export async function setUpForms(server: StandaloneServer, receivers: Receivers) {
  const account = await call(server, "POST", "/api/admin/accounts", adminHeaders, {
    email: "owner@example.com",
  });
  assert.equal(account.status, 200, JSON.stringify(account.body));
  const auth = { TokenId: account.body.token_id, TokenSecret: account.body.token_secret };
  const form = await call(server, "POST", "/api/restricted/form", auth, formBody("Local"));
  assert.equal(form.status, 200, JSON.stringify(form.body));
  const local: LoadedForm = { kind: "local", auth, formId: form.body.id, query: "" };
  const { owned, customerId } = await partnerForm(server, formBody("Partnered"), 500_000_000);
  const partner: LoadedForm = { kind: "partner", ...owned };
  for (const one of [local, partner]) await addDeliveries(server, one, receivers);
  return { forms: [local, partner], customerId };
}

/** W2 to the webhook receiver, then the confirmation e-mail and destination sections. */
async function addDeliveries(server: StandaloneServer, form: Owned, receivers: Receivers) {
  const hook = await call(
    server,
    "POST",
    `/api/restricted/form/${form.formId}/submissionwebhook${form.query}`,
    form.auth,
    { webhook_name: "Crash", webhook_destination_url: receivers.webhooks.url },
  );
  assert.equal(hook.status, 200, JSON.stringify(hook.body));
  const sections = {
    confirmationemailsettings: {
      enabled: true,
      recipient_field: fields.email,
      subject: "{{form_name}}: thanks {{name_1}}",
      body_text: "We got your answers.",
    },
    destinationsettings: { enabled: true, destination_url: receivers.destinations.url },
  };
  for (const [section, body] of Object.entries(sections)) {
    const path = `${settingsPath(form.formId, section)}${form.query.replace("?", "&")}`;
    const answer = await call(server, "POST", path, form.auth, body);
    assert.equal(answer.status, 200, `${section}: ${JSON.stringify(answer.body)}`);
  }
}

/** The submission ids each receiver got at least once, and the e-mail recipients. */
export function deliveredIds(receivers: Receivers) {
  const idOf = (body: string, webhook: boolean): string | undefined => {
    try {
      const parsed = JSON.parse(body);
      return (webhook ? parsed.data : parsed)?.form_submission?.id;
    } catch {
      return undefined;
    }
  };
  const ids = (bodies: { body: string }[], webhook: boolean) =>
    new Set(bodies.map(({ body }) => idOf(body, webhook)).filter((id) => id !== undefined));
  return {
    webhooks: ids(receivers.webhooks.received, true),
    destinations: ids(receivers.destinations.received, false),
    mailedTo: new Set(receivers.inbox.received.flatMap((mail) => mail.rcptTo)),
  };
}

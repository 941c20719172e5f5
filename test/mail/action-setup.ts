import assert from "node:assert/strict";
import { after } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createSmtpMailer } from "../../adapters/smtp/index.ts";
import {
  createFormService,
  createHttpWebhookSender,
  type FormServiceOptions,
} from "../../src/index.ts";
import { settingsPath } from "../form-fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";

/** Options of {@link withActionForm}. */
export interface ActionFormOptions {
  /** The SMTP server's URL; none: no mailer. */
  smtpUrl?: string;
  actionTimeoutMs?: number;
  allowPrivate?: boolean;
  mailMaxAttempts?: number;
  extra?: Partial<FormServiceOptions>;
}

/**
 * A service with fast retries, alice, and her form with an e-mail and a name field, plus
 * helpers to set its confirmation e-mail and destination, and to submit.
 */
export async function withActionForm(options: ActionFormOptions = {}) {
  const allowPrivate = options.allowPrivate ?? true;
  const service = createFormService({
    store: createMemoryStore(),
    allowPrivateWebhookDestinations: allowPrivate,
    webhookSender: createHttpWebhookSender({
      allowPrivateDestinations: allowPrivate,
      retryBaseMs: 20,
      retryMaxDelayMs: 100,
      maxAttempts: 5,
    }),
    webhookPollMs: 50,
    ...(options.smtpUrl
      ? { mailer: createSmtpMailer({ url: options.smtpUrl, from: "forms@example.com" }) }
      : {}),
    actionTimeoutMs: options.actionTimeoutMs ?? 5000,
    mailRetry: {
      retryBaseMs: 20,
      retryMaxDelayMs: 100,
      maxAttempts: options.mailMaxAttempts ?? 50,
    },
    onError: (error) => assert.fail(error instanceof Error ? error : String(error)),
    ...options.extra,
  });
  after(() => service.close());
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const call = (method: string, path: string, send: Parameters<typeof request>[3] = {}) =>
    request(service, method, path, send);
  const fields = [
    { unique_system_name: "email_1", type: "email", label: "E-mail" },
    { unique_system_name: "name_2", type: "text", label: "Name" },
  ];
  const form = await call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Tea & cake", fields),
  });
  const formId: string = form.body.id;
  const setSection = async (section: string, body: unknown) => {
    const answer = await call("POST", settingsPath(formId, section), { as: alice, body });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };
  const confirm = () =>
    setSection("confirmationemailsettings", {
      enabled: true,
      recipient_field: "email_1",
      subject: "{{form_name}}: thanks {{name_2}}",
      body_text: "Hello {{name_2}}, we got your answers.",
    });
  const destination = (url: string) =>
    setSection("destinationsettings", {
      enabled: true,
      destination_url: url,
      http_header_key: "x-api-key",
      http_header_value: "k3y",
    });
  const submit = (name = "Ann", draft = false) =>
    call("POST", `/api/form/${formId}/submission`, {
      body: {
        form_fields: [
          { unique_system_name: "email_1", submitted_value: "ann@example.com" },
          { unique_system_name: "name_2", submitted_value: name },
        ],
        is_draft_submission: draft,
      },
    });
  return { service, alice, call, formId, confirm, destination, submit, setSection };
}

/** The flags of an S2 answer, after checking it succeeded. */
export function flagsOf(answer: { status: number; body: Record<string, unknown> }) {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return {
    email: answer.body.email_address_post_expected_but_failed,
    destination: answer.body.cloud_database_post_expected_but_failed,
  };
}

import assert from "node:assert/strict";
import { test } from "node:test";
import type { FormRecord } from "../../src/domain/forms/form-record.ts";
import type { SubmissionRecord } from "../../src/domain/records/submission-record.ts";
import { confirmationEmailOf } from "../../src/domain/webhooks/confirmation-email.ts";

function formWith(settings: unknown) {
  return {
    form_configuration: {
      settings: { form_name: "Tea & cake" },
      confirmationemailsettings: settings,
    },
  } as unknown as FormRecord;
}

function submissionOf(values: Record<string, string>) {
  const form_fields = Object.entries(values).map(([unique_system_name, submitted_value]) => ({
    unique_system_name,
    submitted_value,
  }));
  return { form_fields } as SubmissionRecord;
}

const settings = {
  enabled: true,
  recipient_field: "email_1",
  additional_recipients: ["owner@example.com", "not an address"],
  reply_to: "help@example.com",
  subject: "{{form_name}}: thanks {{name_2}}",
  body_text: "Hello {{name_2}}, you chose {{choice_3}}.{{missing}}",
};

test("renders subject and body with Mustache: values escaped, missing ones empty", () => {
  const message = confirmationEmailOf(
    formWith(settings),
    submissionOf({ email_1: "ann@example.com", name_2: "<Ann>" }),
  );
  assert.deepEqual(message, {
    to: ["ann@example.com", "owner@example.com"],
    replyTo: "help@example.com",
    subject: "Tea &amp; cake: thanks &lt;Ann&gt;",
    text: "Hello &lt;Ann&gt;, you chose .",
  });
});

test("no e-mail when disabled, missing, or the recipient field holds no address", () => {
  const values = submissionOf({ email_1: "ann@example.com" });
  assert.equal(confirmationEmailOf(formWith(undefined), values), null);
  assert.equal(confirmationEmailOf(formWith({ ...settings, enabled: false }), values), null);
  assert.equal(confirmationEmailOf(formWith(settings), submissionOf({ email_1: "" })), null);
  assert.equal(confirmationEmailOf(formWith("nonsense"), values), null);
});

test("CR/LF in submitted values adds no header and no recipient", () => {
  const injected = "ann@example.com\r\nBcc: eve@example.com";
  assert.equal(confirmationEmailOf(formWith(settings), submissionOf({ email_1: injected })), null);
  const message = confirmationEmailOf(
    formWith(settings),
    submissionOf({ email_1: "ann@example.com", name_2: "Ann\r\nBcc: eve@example.com" }),
  );
  assert.equal(message?.subject, "Tea &amp; cake: thanks Ann Bcc: eve@example.com");
  assert.deepEqual(message?.to, ["ann@example.com", "owner@example.com"]);
});

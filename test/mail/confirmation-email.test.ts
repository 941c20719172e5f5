import assert from "node:assert/strict";
import { test } from "node:test";
import Mustache from "mustache";
import type { FormRecord } from "../../src/domain/forms/form-record.ts";
import type { SubmissionRecord } from "../../src/domain/records/submission-record.ts";
import {
  confirmationEmailOf,
  renderedEmailBounds,
} from "../../src/domain/webhooks/confirmation-email.ts";
import { renderWithin } from "../../src/domain/webhooks/template-rendering.ts";

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
  // Stored before F2 bounded it: a template nesting sections too deep sends nothing.
  const deep = `${"{{#email_1}}".repeat(33)}x${"{{/email_1}}".repeat(33)}`;
  assert.equal(confirmationEmailOf(formWith({ ...settings, body_text: deep }), values), null);
});

test("CR/LF in submitted values adds no header and no recipient", () => {
  const injected = "ann@example.com\r\nBcc: eve@example.com";
  assert.equal(confirmationEmailOf(formWith(settings), submissionOf({ email_1: injected })), null);
  const message = confirmationEmailOf(
    formWith(settings),
    submissionOf({ email_1: "ann@example.com", name_2: "Ann\r\nBcc: eve@example.com" }),
  );
  assert.ok(message && !("refused" in message));
  assert.equal(message.subject, "Tea &amp; cake: thanks Ann Bcc: eve@example.com");
  assert.deepEqual(message?.to, ["ann@example.com", "owner@example.com"]);
});

test("a subject or body past its bound in bytes of UTF-8 is refused, with its reason", () => {
  const { subjectBytes, bodyBytes } = renderedEmailBounds;
  const to = ["ann@example.com", "owner@example.com"];
  const mail = (subject: string, body_text: string, name: string) =>
    confirmationEmailOf(
      formWith({ ...settings, subject, body_text }),
      submissionOf({ email_1: "ann@example.com", name_2: name }),
    );
  // "é" is two bytes: the bound counts bytes, not characters.
  const fits = mail("{{name_2}}", "{{name_2}}{{name_2}}", "é".repeat(subjectBytes / 2 - 1));
  assert.ok(fits && !("refused" in fits));
  assert.deepEqual(mail("{{name_2}}", "", "é".repeat(subjectBytes / 2 + 1)), {
    to,
    refused: "the rendered subject is longer than 998 bytes",
  });
  // Made one line and trimmed, as it is sent, before it is measured.
  const spaced = mail("\n".repeat(2000), "", "x");
  assert.ok(spaced && !("refused" in spaced));
  const half = "x".repeat(bodyBytes / 2);
  const full = mail("Hi", "{{name_2}}{{name_2}}", half);
  assert.ok(full && !("refused" in full));
  assert.equal(full.text.length, bodyBytes);
  assert.deepEqual(mail("Hi", "{{name_2}}{{name_2}}!", half), {
    to,
    refused: "the rendered body is larger than 65536 bytes",
  });
  // Escaping counts: "&" is sent as "&amp;".
  assert.equal("refused" in (mail("Hi", "{{name_2}}", "&".repeat(bodyBytes / 4)) ?? {}), true);
  assert.equal("refused" in (mail("Hi", "{{{name_2}}}", "&".repeat(bodyBytes / 4)) ?? {}), false);
});

test("the bounded renderer renders as Mustache does, and stops at its budget", () => {
  const view = { a: "<x>", b: "", n: "3" };
  const templates = [
    "{{a}} {{{a}}} {{&a}} {{missing}}",
    "{{#a}}[{{.}}|{{a}}]{{/a}}{{^b}}no b{{/b}}{{#b}}b{{/b}}{{^a}}no a{{/a}}",
    "{{! comment }}{{=<% %>=}}<% a %>",
    "{{a.length}} {{#n}}{{n}}{{/n}} {{> partial}}",
    "line\n  {{#a}}\n  inside\n  {{/a}}\nend",
  ];
  for (const template of templates) {
    assert.equal(renderWithin(template, view, 1000), Mustache.render(template, view), template);
  }
  const value = "v".repeat(200_000);
  // 2,000 names of a 200 kB value: given up at the first, never 400 MB built.
  assert.equal(renderWithin("{{a}}".repeat(2000), { a: value }, 64 * 1024), null);
  assert.equal(renderWithin("ab", {}, 1), null);
  assert.equal(renderWithin("ab", {}, 2), "ab");
  assert.equal(renderWithin("{{a}}", { a: "€" }, 2), null);
  assert.equal(renderWithin("{{a}}", { a: "€" }, 3), "€");
});

import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { simpleParser } from "mailparser";
import { startInbox } from "../mail/smtp-inbox.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

/** On a running server: alice, a form with a confirmation e-mail, and one submission. */
async function submitWithConfirmation(base: string, adminSecret: string) {
  const json = { "content-type": "application/json" };
  const account = await (
    await fetch(`${base}/api/admin/accounts`, {
      method: "POST",
      headers: { AdminSecret: adminSecret, ...json },
      body: JSON.stringify({ email: "alice@example.com" }),
    })
  ).json();
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret, ...json };
  const field = { unique_system_name: "email_1", type: "email", label: "E-mail" };
  const form = await (
    await fetch(`${base}/api/restricted/form`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        form_configuration: { settings: { form_name: "Mailed", form_type: "classicsingle" } },
        form_definition: { pages: [{ title: "P", fields: [field] }] },
      }),
    })
  ).json();
  const section = "confirmationemailsettings";
  const settings = await fetch(
    `${base}/api/restricted/form/${form.id}/?updateSettingsOnly=1&settingsSection=${section}`,
    {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        enabled: true,
        recipient_field: "email_1",
        subject: "Thanks from {{form_name}}",
        body_text: "We got {{email_1}}.",
      }),
    },
  );
  assert.equal(settings.status, 200);
  const posted = await fetch(`${base}/api/form/${form.id}/submission`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      form_fields: [{ unique_system_name: "email_1", submitted_value: "ann@example.com" }],
    }),
  });
  return posted.json();
}

describe("standalone server e-mails", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("writes each e-mail as an .eml file under DATA_DIR/mail without SMTP_URL", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-mail-"));
    dirs.push(dataDir);
    const server = await start({ DATA_DIR: dataDir, ADMIN_SECRET: "secret", MAIL_FROM: "f@x.org" });
    try {
      const answer = await submitWithConfirmation(server.base, "secret");
      assert.equal(answer.email_address_post_expected_but_failed, false);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
    const files = await readdir(join(dataDir, "mail"));
    assert.equal(files.length, 1);
    assert.match(files[0] ?? "", /\.eml$/);
    const mail = await simpleParser(await readFile(join(dataDir, "mail", files[0] ?? "")));
    assert.equal(mail.subject, "Thanks from Mailed");
    assert.equal(mail.text?.trim(), "We got ann@example.com.");
    assert.equal(mail.from?.value[0]?.address, "f@x.org");
  });

  it("sends through SMTP_URL when it is set", async (t) => {
    const inbox = await startInbox();
    t.after(inbox.close);
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-mail-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: "secret", SMTP_URL: inbox.url };
    const server = await start(env);
    try {
      const answer = await submitWithConfirmation(server.base, "secret");
      assert.equal(answer.email_address_post_expected_but_failed, false);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
    assert.equal(inbox.received[0]?.mail.subject, "Thanks from Mailed");
    assert.deepEqual(inbox.received[0]?.rcptTo, ["ann@example.com"]);
  });
});

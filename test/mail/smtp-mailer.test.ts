import assert from "node:assert/strict";
import { test } from "node:test";
import { createSmtpMailer } from "../../adapters/smtp/index.ts";
import { MailRejectedError } from "../../src/ports/mailer.ts";
import { downServerUrl, startInbox, startSilentServer } from "./smtp-inbox.ts";

const message = { to: ["ann@example.com"], subject: "Thanks, Ann", text: "We got it.\nBye" };

test("sends over plain SMTP without STARTTLS, and mailparser reads what arrived", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const mailer = createSmtpMailer({ url: inbox.url, from: "Forms <forms@example.com>" });
  await mailer.send({ ...message, replyTo: "owner@example.com" });
  const [got] = inbox.received;
  assert.deepEqual(got?.rcptTo, ["ann@example.com"]);
  assert.equal(got?.mail.subject, "Thanks, Ann");
  assert.equal(got?.mail.text?.trim(), "We got it.\nBye");
  assert.equal(got?.mail.from?.value[0]?.address, "forms@example.com");
  assert.equal(got?.mail.replyTo?.value[0]?.address, "owner@example.com");
});

test("authenticates with the user and password of the URL", async (t) => {
  const inbox = await startInbox({ auth: { user: "forms", pass: "s3cret" } });
  t.after(inbox.close);
  await createSmtpMailer({ url: inbox.url, from: "forms@example.com" }).send(message);
  assert.equal(inbox.received.length, 1);
  const wrong = inbox.url.replace("s3cret", "wrong");
  await assert.rejects(createSmtpMailer({ url: wrong, from: "forms@example.com" }).send(message));
  assert.equal(inbox.received.length, 1);
});

test("a recipient the server refuses rejects with MailRejectedError", async (t) => {
  const inbox = await startInbox({ refuse: ["ann@example.com"] });
  t.after(inbox.close);
  const mailer = createSmtpMailer({ url: inbox.url, from: "forms@example.com" });
  await assert.rejects(mailer.send(message), MailRejectedError);
  const some = mailer.send({ ...message, to: ["ann@example.com", "bob@example.com"] });
  await assert.rejects(some, MailRejectedError);
});

test("a server that is down rejects with an error that may pass", async () => {
  const mailer = createSmtpMailer({ url: await downServerUrl(), from: "forms@example.com" });
  await assert.rejects(mailer.send(message), (error) => !(error instanceof MailRejectedError));
});

test("a server that accepts the connection and never answers fails after the timeout", async (t) => {
  const silent = await startSilentServer();
  t.after(silent.close);
  const mailer = createSmtpMailer({ url: silent.url, from: "forms@example.com", timeoutMs: 200 });
  await assert.rejects(mailer.send(message), (error) => !(error instanceof MailRejectedError));
});

test("CR/LF in a subject or an address never becomes a header or a recipient", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const mailer = createSmtpMailer({ url: inbox.url, from: "forms@example.com" });
  await mailer.send({
    to: ["ann@example.com"],
    subject: "Hi\r\nBcc: eve@example.com\r\nX-Injected: yes",
    text: "body",
  });
  const [got] = inbox.received;
  assert.deepEqual(got?.rcptTo, ["ann@example.com"]);
  assert.equal(got?.mail.headers.has("x-injected"), false);
  assert.equal(got?.mail.bcc, undefined);
  await assert.rejects(
    mailer.send({ to: ["ann@example.com\r\nBcc: eve@example.com"], subject: "s", text: "t" }),
  );
  assert.equal(inbox.received.length, 1);
});

import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { simpleParser } from "mailparser";
import { createFileMailer } from "../../examples/standalone/file-mailer.ts";

test("the .eml mailer writes one file per e-mail id, however often it is sent", async (t) => {
  const directory = await mkdtemp(join(tmpdir(), "formwork-eml-"));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const mailer = createFileMailer({ directory, from: "Forms <forms@example.org>" });
  const message = {
    id: "0b7c2a9e-1d2f-4e5a-9b8c-7d6e5f4a3b2c",
    to: ["ann@example.com"],
    subject: "Hi",
    text: "Body",
  };
  await mailer.send(message);
  await mailer.send({ ...message, subject: "Hi again" });
  await mailer.send({ to: ["bob@example.com"], subject: "No id", text: "Body" });
  const files = (await readdir(directory)).sort();
  assert.equal(files.length, 2);
  assert.ok(files.includes(`${message.id}.eml`), files.join(", "));
  const mail = await simpleParser(await readFile(join(directory, `${message.id}.eml`)));
  assert.equal(mail.subject, "Hi");
  assert.equal(mail.messageId, `<${message.id}@example.org>`);
});

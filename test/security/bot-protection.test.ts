/**
 * The bot protections a form's owner switches on (`securitysettings.bot_protection`): a
 * challenge fetched from the service and solved here with altcha-lib's solver, its replay,
 * a honeypot post and a post sooner than `min_fill_seconds`, through the public surface.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type Challenge, solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { settingsPath } from "../form-fixture.ts";
import { conformingFetch, formInput, setup, uploadBytes } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name" },
  { unique_system_name: "cv_2", type: "file", label: "CV", max_file_size: 1000 },
];
const post = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };

/** A service whose clock follows the machine's, moved on by `advance`, and a form. */
async function withForm(protection?: Record<string, unknown>) {
  const raw = createMemoryStore();
  const store = serviceQueriesOnly(raw);
  let offset = 0;
  const env = await setup({ store, now: () => new Date(Date.now() + offset), sweepIntervalMs: 0 });
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Contact", fields),
  });
  assert.equal(created.status, 200);
  const formId: string = created.body.id;
  if (protection) {
    const saved = await env.call("POST", settingsPath(formId, "securitysettings"), {
      as: alice,
      body: { bot_protection: protection },
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  }
  const advance = (seconds: number) => {
    offset += seconds * 1000;
  };
  const submit = (headers: Record<string, string> = {}, id = formId) =>
    env.call("POST", `/api/form/${id}/submission`, { body: post, headers });
  const stored = async () => (await raw.query("submissions", formId)).items.length;
  const counted = async () =>
    (await raw.get<{ id: string; counts: Record<string, number> }>("form_counters", formId, formId))
      ?.record.counts.submissions ?? 0;
  /** A challenge of the service for `id`, solved: the `Altcha` header. */
  const solved = async (id = formId) => {
    const answer = await env.call("GET", `/api/form/${id}/challenge`);
    assert.equal(answer.status, 200);
    const challenge = answer.body as Challenge;
    const solution = await solveChallenge({ challenge, deriveKey });
    assert.ok(solution);
    return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
  };
  /** The hosted page's mark of when it was served, and whether it has the honeypot. */
  const page = async () => {
    const response = await conformingFetch(env.service)(
      new Request(`http://localhost/f/${formId}`),
    );
    const text = await response.text();
    return {
      text,
      mark: /data-page-mark="([^"]+)"/.exec(text)?.[1] ?? "",
    };
  };
  return { ...env, raw, alice, formId, advance, submit, stored, counted, solved, page };
}

/** A service on the real fs blob store, and a form with a file field guarded by a challenge. */
async function withFileForm() {
  const directory = await mkdtemp(join(tmpdir(), "formwork-bots-"));
  const blobs = createFsBlobStore({
    directory,
    storageUrl: "http://localhost/storage",
    signingSecret: "test signing secret",
  });
  const env = await setup({ blobs, sweepIntervalMs: 0 });
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Files", fields),
  });
  const formId: string = created.body.id;
  await env.call("POST", settingsPath(formId, "securitysettings"), {
    as: alice,
    body: { bot_protection: { challenge: true } },
  });
  return { env, formId, done: () => rm(directory, { recursive: true, force: true }) };
}

describe("bot protection: the challenge (ALTCHA)", () => {
  it("accepts a post with a challenge solved by altcha-lib, once", async () => {
    const env = await withForm({ challenge: true });
    // F5 tells a client that the form needs a challenge (and nothing else of the section).
    const read = await env.call("GET", `/api/form/${env.formId}`);
    assert.deepEqual(read.body.form_configuration.securitysettings, {
      bot_protection: { challenge: true, honeypot: false, min_fill_seconds: 0 },
    });
    const altcha = await env.solved();
    const first = await env.submit({ Altcha: altcha });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(await env.stored(), 1);
    const replay = await env.submit({ Altcha: altcha });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, "challenge_required");
    assert.equal(await env.stored(), 1);
  });

  it("refuses a post without the header, with garbage, or with another form's solution", async () => {
    const env = await withForm({ challenge: true });
    const other = await withForm();
    const cases: Record<string, string>[] = [
      {},
      { Altcha: "" },
      { Altcha: "not base64 at all %%%" },
      { Altcha: Buffer.from('{"challenge":{},"solution":{}}').toString("base64") },
      { Altcha: "x".repeat(5000) },
    ];
    for (const headers of cases) {
      const answer = await env.submit(headers);
      assert.equal(answer.status, 400, JSON.stringify(headers).slice(0, 60));
      assert.equal(answer.body.error, "challenge_required");
    }
    // A solution of another form's challenge: from the same service is needed for the
    // signature to hold, so the other form is asked on this service.
    const created = await env.call("POST", "/api/restricted/form", {
      as: env.alice,
      body: formInput("Other", fields),
    });
    const foreign = await env.solved(created.body.id);
    const answer = await env.submit({ Altcha: foreign });
    assert.equal(answer.body.error, "challenge_required");
    assert.equal(await env.stored(), 0);
    // A solution signed by another service (another key) is refused too.
    const elsewhere = await other.solved();
    const forged = JSON.parse(Buffer.from(elsewhere, "base64").toString());
    forged.challenge.parameters.data.form = env.formId;
    const signedElsewhere = Buffer.from(JSON.stringify(forged)).toString("base64");
    assert.equal((await env.submit({ Altcha: signedElsewhere })).body.error, "challenge_required");
  });

  it("keeps used solutions until their challenge expires, then the sweep deletes them", async () => {
    const env = await withForm({ challenge: true });
    assert.equal((await env.submit({ Altcha: await env.solved() })).status, 200);
    const kept = async () => {
      let count = 0;
      const now = Date.now();
      for (let hours = -1; hours < 4; hours++) {
        const bucket = new Date(now + hours * 3_600_000).toISOString().slice(0, 13);
        count += (await env.raw.query("used_challenge_solutions", bucket)).items.length;
      }
      return count;
    };
    await env.service.sweepAttachments();
    assert.equal(await kept(), 1);
    env.advance(2 * 3600);
    await env.service.sweepAttachments();
    assert.equal(await kept(), 0);
  });

  it("refuses an expired solution", async () => {
    const env = await withForm({ challenge: true });
    const altcha = await env.solved();
    env.advance(601);
    const answer = await env.submit({ Altcha: altcha });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, "challenge_required");
    assert.match(answer.body.message, /expired/);
    assert.equal(await env.stored(), 0);
  });

  it("guards S3 too: no header is refused, a solution is good for one upload", async () => {
    const { env, formId, done } = await withFileForm();
    try {
      const bare = await uploadBytes(env.service, formId, "cv_2", 10);
      assert.equal(bare.status, 400);
      const challenge = (await env.call("GET", `/api/form/${formId}/challenge`)).body;
      const solution = await solveChallenge({ challenge, deriveKey });
      const altcha = Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
      const send = () => {
        const body = new FormData();
        body.append("cv_2", new Blob(["hello"]), "cv.txt");
        return conformingFetch(env.service)(
          new Request(`http://localhost/api/form/${formId}/submissionattachment`, {
            method: "POST",
            body,
            headers: { Altcha: altcha },
          }),
        );
      };
      assert.equal((await send()).status, 200);
      const again = await send();
      assert.equal(again.status, 400);
      assert.equal((await again.json()).error, "challenge_required");
    } finally {
      await done();
    }
  });

  it("replays a keyed S2 or S3 retried with its spent solution, without a new one", async () => {
    const { env, formId, done } = await withFileForm();
    try {
      const solve = async () => {
        const challenge = (await env.call("GET", `/api/form/${formId}/challenge`)).body;
        const solution = await solveChallenge({ challenge, deriveKey });
        return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
      };
      const uploadAltcha = await solve();
      const upload = () => {
        const body = new FormData();
        body.append("cv_2", new Blob(["hello"]), "cv.txt");
        return conformingFetch(env.service)(
          new Request(`http://localhost/api/form/${formId}/submissionattachment`, {
            method: "POST",
            body,
            headers: { Altcha: uploadAltcha, "Idempotency-Key": "upload-1" },
          }),
        );
      };
      const first = await upload();
      assert.equal(first.status, 200);
      const retried = await upload();
      assert.equal(retried.status, 200);
      assert.equal(retried.headers.get("Idempotent-Replayed"), "true");
      assert.equal((await retried.json()).id, (await first.json()).id);
      const postAltcha = await solve();
      const headers = { Altcha: postAltcha, "Idempotency-Key": "post-1" };
      const posted = await env.call("POST", `/api/form/${formId}/submission`, {
        body: post,
        headers,
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const again = await env.call("POST", `/api/form/${formId}/submission`, {
        body: post,
        headers,
      });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.id, posted.body.id);
    } finally {
      await done();
    }
  });

  it("lets a form without protection take plain posts, and issues challenges for any form", async () => {
    const env = await withForm();
    const answer = await env.submit();
    assert.equal(answer.status, 200);
    assert.equal(await env.stored(), 1);
    const read = await env.call("GET", `/api/form/${env.formId}`);
    assert.equal(read.body.form_configuration.securitysettings, undefined);
    // A challenge is issued anyway (a client may fetch one before knowing) and is harmless.
    assert.ok(await env.solved());
  });

  it("answers 404 for the challenge of a form that does not exist", async () => {
    const env = await withForm();
    const answer = await env.call(
      "GET",
      "/api/form/00000000-0000-4000-8000-000000000000/challenge",
    );
    assert.equal(answer.status, 404);
  });
});

describe("bot protection: the hosted page's honeypot and least fill time", () => {
  it("draws a hidden honeypot and answers its post as accepted without storing it", async () => {
    const env = await withForm({ honeypot: true });
    const { text, mark } = await env.page();
    assert.match(
      text,
      /<div class="hp" aria-hidden="true"><label for="hp-website">Website<\/label><input type="text" id="hp-website" name="website" tabindex="-1" autocomplete="off"><\/div>/,
    );
    assert.ok(mark);
    const trapped = await env.submit({
      "Formwork-Page": mark,
      "Formwork-Honeypot": "spam.example",
    });
    assert.equal(trapped.status, 200);
    assert.equal(trapped.body.message, "Submission posted successfully");
    assert.match(trapped.body.id, /^[0-9a-f-]{36}$/);
    assert.equal(await env.stored(), 0);
    assert.equal(await env.counted(), 0);
    const person = await env.submit({ "Formwork-Page": mark });
    assert.equal(person.status, 200);
    assert.equal(await env.stored(), 1);
  });

  it("answers a post sooner than min_fill_seconds as accepted without storing it", async () => {
    const env = await withForm({ min_fill_seconds: 5 });
    const { mark, text } = await env.page();
    assert.doesNotMatch(text, /id="hp-website"/);
    const fast = await env.submit({ "Formwork-Page": mark });
    assert.equal(fast.status, 200);
    assert.equal(fast.body.actionSuccessful, true);
    assert.equal(await env.stored(), 0);
    env.advance(5);
    const later = await env.submit({ "Formwork-Page": mark });
    assert.equal(later.status, 200);
    assert.equal(await env.stored(), 1);
  });

  it("drops a post whose page mark is forged, and stores API posts that carry none", async () => {
    const env = await withForm({ min_fill_seconds: 5, honeypot: true });
    const { mark } = await env.page();
    const [time, mac] = mark.split(".") as [string, string];
    const older = `${Number(time) - 60_000}.${mac}`;
    assert.equal((await env.submit({ "Formwork-Page": older })).status, 200);
    assert.equal((await env.submit({ "Formwork-Page": "123.abc" })).status, 200);
    assert.equal(await env.stored(), 0);
    // No mark: a client of the API, which these protections do not target (the challenge does).
    assert.equal((await env.submit()).status, 200);
    assert.equal(await env.stored(), 1);
  });
});

describe("bot protection: F2", () => {
  it("checks bot_protection's values", async () => {
    const env = await withForm();
    for (const bad of [
      { challenge: "yes" },
      { honeypot: 1 },
      { min_fill_seconds: -1 },
      { min_fill_seconds: 1.5 },
      { min_fill_seconds: 3601 },
      { other: true },
    ]) {
      const answer = await env.call("POST", settingsPath(env.formId, "securitysettings"), {
        as: env.alice,
        body: { bot_protection: bad },
      });
      assert.equal(answer.status, 400, JSON.stringify(bad));
    }
    const good = await env.call("POST", settingsPath(env.formId, "securitysettings"), {
      as: env.alice,
      body: { bot_protection: { challenge: false, honeypot: true, min_fill_seconds: 3600 } },
    });
    assert.equal(good.status, 200);
  });
});

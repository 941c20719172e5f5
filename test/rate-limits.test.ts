import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService, type FormServiceOptions } from "../src/index.ts";
import { operations } from "../src/routes/operations.ts";
import { publicPathPattern, rateLimitKindOf } from "../src/routes/rate-limit-stage.ts";
import { conformingFetch, formInput, type TestUser } from "./helpers.ts";
import { customerBody, partnerCalls, tokenSecret } from "./partners/setup.ts";

type Limits = FormServiceOptions["rateLimits"];

/** A service whose requests come from the client address the test names. */
async function limited(rateLimits: Limits) {
  const service = createFormService({
    store: createMemoryStore(),
    rateLimits,
    webhookPollMs: 0,
    sweepIntervalMs: 0,
    partners: { tokenSecret },
  });
  const send = async (
    method: string,
    path: string,
    { from = "198.51.100.7", headers = {}, body }: SendFrom = {},
  ) => {
    const response = await conformingFetch(service)(
      new Request(`http://localhost${path}`, {
        method,
        headers: { "content-type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { clientAddress: from },
    );
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
  const owner = (await service.admin.createAccount({ email: "owner@example.com" })) as TestUser;
  const as = (user: TestUser) => ({ TokenId: user.token_id, TokenSecret: user.token_secret });
  const form = await send("POST", "/api/restricted/form", {
    headers: as(owner),
    body: formInput("Limited", [{ unique_system_name: "name_1", type: "text", label: "Name" }]),
  });
  return { service, send, owner, as, formId: form.body.id as string };
}

interface SendFrom {
  from?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  body: any;
}

function assertRateLimited(answer: Answer, limit: number) {
  assert.equal(answer.status, 429);
  assert.equal(answer.body.error, "rate_limited");
  assert.equal(answer.body.action_successful, false);
  assert.equal(answer.headers.get("ratelimit-limit"), String(limit));
  assert.equal(answer.headers.get("ratelimit-remaining"), "0");
  const retryAfter = Number(answer.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
}

describe("rate limits (docs/design.md §17)", () => {
  it("counts F5, S2, S3 and the hosted page per client address", async () => {
    const env = await limited({ publicPerMinute: 4, credentialPerMinute: 0 });
    const submission = {
      form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }],
    };
    const f5 = await env.send("GET", `/api/form/${env.formId}`);
    assert.equal(f5.status, 200);
    assert.equal(f5.headers.get("ratelimit-limit"), "4");
    assert.equal(f5.headers.get("ratelimit-remaining"), "3");
    assert.equal(
      (await env.send("POST", `/api/form/${env.formId}/submission`, { body: submission })).status,
      200,
    );
    const page = await conformingFetch(env.service)(
      new Request(`http://localhost/f/${env.formId}`),
      {
        clientAddress: "198.51.100.7",
      },
    );
    assert.equal(page.status, 200);
    const upload = await env.send("POST", `/api/form/${env.formId}/submissionattachment`, {
      headers: { "content-type": "multipart/form-data; boundary=x" },
    });
    assert.ok(upload.status >= 400 && upload.status < 429, "counted, then refused for its body");
    const over = await env.send("POST", `/api/form/${env.formId}/submission`, { body: submission });
    assertRateLimited(over, 4);
    assert.equal(over.body.actionSuccessful, false);
    const listed = await env.send("GET", `/api/restricted/form/${env.formId}/submissions`, {
      headers: env.as(env.owner),
    });
    assert.equal(listed.body.results.length, 1, "the refused S2 stored nothing");
    // Another address has its own allowance; restricted routes are not counted by address.
    assert.equal((await env.send("GET", `/api/form/${env.formId}`, { from: "::1" })).status, 200);
  });

  it("counts per client address the paths of the operations declared public", () => {
    const publicPaths = publicPathPattern(operations);
    const id = "0190a8c4-1b2c-7d3e-8f40-123456789abc";
    const counted = [`/api/form/${id}`, `/API/Form/${id}/`, `/f/${id}`, `/f/${id}/`];
    for (const tail of ["submission", "submissionattachment", "Submission/", "challenge"])
      counted.push(`/api/form/${id}/${tail}`);
    for (const path of counted) assert.ok(publicPaths.test(path), path);
    const notCounted = [
      `/api/form/${id}/submissions`,
      `/api/form/${id}/clone`,
      `/api/restricted/form/${id}`,
      `/f/${id}/more`,
      `/api/form/`,
      "/openapi.json",
      `/x/api/form/${id}`,
    ];
    for (const path of notCounted) assert.ok(!publicPaths.test(path), path);
    assert.deepEqual(
      operations
        .filter((operation) => rateLimitKindOf(operation) === "public")
        .map((o) => o.operationId),
      ["postSubmission", "uploadAttachment", "getChallenge", "getForm", "formPage"],
    );
  });

  it("counts restricted routes per token, and only tokens that authenticated", async () => {
    const env = await limited({ publicPerMinute: 0, credentialPerMinute: 2 });
    const forged = { TokenId: env.owner.token_id, TokenSecret: "not the secret" };
    for (let n = 0; n < 5; n++) {
      const answer = await env.send("GET", "/api/restricted/user/form", { headers: forged });
      assert.equal(answer.status, 401);
    }
    // Creating the form took one of the two; the forged calls took none.
    const first = await env.send("GET", "/api/restricted/user/form", {
      headers: env.as(env.owner),
    });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("ratelimit-remaining"), "0");
    assertRateLimited(
      await env.send("GET", "/api/restricted/user/datalist", { headers: env.as(env.owner) }),
      2,
    );
    const second = (await env.service.admin.createToken(env.owner.user_id)) as TestUser;
    const other = await env.send("GET", "/api/restricted/user/form", {
      headers: env.as({ ...env.owner, ...second }),
    });
    assert.equal(other.status, 200, "each token has its own allowance");
  });

  it("counts partners and their customers, each on its own", async () => {
    const env = await limited({ publicPerMinute: 0, credentialPerMinute: 2 });
    const call = (method: string, path: string, send: SendFrom = {}) =>
      env.send(method, path, send);
    const partner = partnerCalls(call, await env.service.admin.createPartner({ name: "Acme" }));
    await partner.addCustomer(customerBody("carla@example.com"));
    const jwt = await partner.login("carla@example.com");
    assertRateLimited(await partner.asPartner("GET", "/api/restricted/partner/users"), 2);
    const asCarla = () => partner.asCustomer(jwt, "GET", "/api/restricted/user/form");
    assert.equal((await asCarla()).status, 200);
    assert.equal((await asCarla()).status, 200);
    assertRateLimited(await asCarla(), 2);
  });

  it("turns a limit off with 0, and leaves requests of unknown address uncounted", async () => {
    const env = await limited({ publicPerMinute: 0, credentialPerMinute: 0 });
    for (let n = 0; n < 20; n++) {
      const answer = await env.send("GET", `/api/form/${env.formId}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get("ratelimit-limit"), null);
    }
    const unknown = await limited({ publicPerMinute: 1 });
    for (let n = 0; n < 3; n++)
      assert.equal(
        (await unknown.send("GET", `/api/form/${unknown.formId}`, { from: "" })).status,
        200,
      );
  });

  it("refuses an upload limit no form's unclaimed-upload cap could hold", () => {
    const limits = { uploadBytes: 2000, unclaimedUploadBytes: 1000 };
    assert.throws(
      () => createFormService({ store: createMemoryStore(), limits }),
      /limits.uploadBytes \(2000\) exceeds limits.unclaimedUploadBytes \(1000\)/,
    );
  });

  it("refuses a limit that is not a whole number", () => {
    assert.throws(
      () => createFormService({ store: createMemoryStore(), rateLimits: { publicPerMinute: -1 } }),
      /rateLimits.publicPerMinute must be a whole number/,
    );
  });
});

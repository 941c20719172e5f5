import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService } from "../src/index.ts";
import type { Store } from "../src/ports/index.ts";
import { formInput, request, setup } from "./helpers.ts";

describe("account tokens", () => {
  it("refuses restricted routes without credentials, with one header, or with wrong ones", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const path = "/api/restricted/user/form";
    const cases: Record<string, string>[] = [
      {},
      { TokenId: alice.token_id },
      { TokenSecret: alice.token_secret },
      { TokenId: alice.token_id, TokenSecret: `${alice.token_secret}x` },
      { TokenId: "not-a-guid", TokenSecret: alice.token_secret },
      { TokenId: "01234567-89ab-7def-8123-456789abcdef", TokenSecret: alice.token_secret },
    ];
    for (const headers of cases) {
      const { status, body } = await call("GET", path, { headers });
      assert.equal(status, 401, JSON.stringify(headers));
      assert.equal(body.error, "unauthorized");
      assert.equal(body.action_successful, false);
      assert.equal(body.id, "");
    }
    assert.equal((await call("GET", path, { as: alice })).status, 200);
  });

  it("rejects wrong credentials on the public paths too", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const { body } = await call("POST", "/api/restricted/form", { as: alice, body: formInput() });
    const headers = { TokenId: alice.token_id, TokenSecret: "wrong" };
    assert.equal((await call("GET", `/api/form/${body.id}`, { headers })).status, 401);
    assert.equal((await call("GET", `/api/form/${body.id}`)).status, 200);
  });

  it("keeps only a hash of each secret and revokes one token without the others", async () => {
    const store = createMemoryStore();
    const service = createFormService({ store });
    const alice = await service.admin.createAccount({ email: "alice@example.com" });
    const second = await service.admin.createToken(alice.user_id);
    const stored = await store.get("tokens", alice.token_id, alice.token_id);
    assert.ok(stored);
    assert.ok(!JSON.stringify(stored.record).includes(alice.token_secret));
    assert.equal(await service.admin.revokeToken(alice.token_id), true);
    assert.equal(await service.admin.revokeToken(alice.token_id), false);
    const path = "/api/restricted/user/datalist";
    assert.equal((await request(service, "GET", path, { as: { ...alice } })).status, 401);
    const other = { ...alice, token_id: second.token_id, token_secret: second.token_secret };
    assert.equal((await request(service, "GET", path, { as: other })).status, 200);
  });
});

describe("admin API over HTTP", () => {
  const admin = { AdminSecret: "s3cret-admin" };

  it("does not exist without a configured secret", async () => {
    const { call } = await setup();
    const { status, body } = await call("POST", "/api/admin/accounts", {
      headers: admin,
      body: { email: "a@example.com" },
    });
    assert.equal(status, 404);
    assert.equal(body.error, "not_found");
  });

  it("needs the right AdminSecret", async () => {
    const { call } = await setup({ adminSecret: admin.AdminSecret });
    for (const headers of [{}, { AdminSecret: "wrong" }] as Record<string, string>[]) {
      const { status } = await call("POST", "/api/admin/accounts", {
        headers,
        body: { email: "a@example.com" },
      });
      assert.equal(status, 401);
    }
  });

  it("creates accounts, tokens and partners that work", async () => {
    const { call } = await setup({ adminSecret: admin.AdminSecret });
    const created = await call("POST", "/api/admin/accounts", {
      headers: admin,
      body: { email: " Alice@Example.com " },
    });
    assert.equal(created.status, 200);
    assert.deepEqual(Object.keys(created.body).sort(), [
      "email",
      "token_id",
      "token_secret",
      "user_id",
    ]);
    assert.equal(created.body.email, "alice@example.com");
    assert.match(created.body.user_id, /^local\|[0-9a-f-]{36}$/);
    const token = await call(
      "POST",
      `/api/admin/accounts/${encodeURIComponent(created.body.user_id)}/tokens`,
      {
        headers: admin,
      },
    );
    assert.equal(token.status, 200);
    assert.equal(token.body.user_id, created.body.user_id);
    const me = { ...created.body, ...token.body };
    assert.equal((await call("GET", "/api/restricted/user/form", { as: me })).status, 200);
    const partner = await call("POST", "/api/admin/partners", {
      headers: admin,
      body: { name: "Acme" },
    });
    assert.equal(partner.status, 200);
    assert.equal(partner.body.partner_account_id, partner.body.partner_id);
    assert.equal(typeof partner.body.partner_secret, "string");
  });

  it("answers 409 for a taken e-mail, 400 for a bad e-mail or user id, 404 for an unknown account", async () => {
    const { call } = await setup({ adminSecret: admin.AdminSecret });
    const first = await call("POST", "/api/admin/accounts", {
      headers: admin,
      body: { email: "a@example.com" },
    });
    assert.equal(first.status, 200);
    const again = await call("POST", "/api/admin/accounts", {
      headers: admin,
      body: { email: "A@example.com" },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, "conflict");
    const bad = await call("POST", "/api/admin/accounts", {
      headers: admin,
      body: { email: "nope" },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.issues[0].path, "email");
    const malformed = await call("POST", "/api/admin/accounts/local%7Cnobody/tokens", {
      headers: admin,
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.issues[0].path, "userId");
    const missing = await call(
      "POST",
      "/api/admin/accounts/local%7C01234567-89ab-7def-8123-456789abcdef/tokens",
      { headers: admin },
    );
    assert.equal(missing.status, 404);
    const partner = await call("POST", "/api/admin/partners", { headers: admin, body: {} });
    assert.equal(partner.status, 400);
  });
});

describe("errors", () => {
  it("answers unknown routes with a 404 envelope", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    for (const [method, path] of [
      ["GET", "/nothing"],
      ["PUT", "/api/restricted/nothing"],
      ["POST", "/api/restricted/form/x/y/z"],
    ] as const) {
      const { status, body } = await call(method, path, { as: alice });
      assert.equal(status, 404);
      assert.deepEqual(body, {
        id: "",
        message: "No such endpoint",
        action_successful: false,
        error: "not_found",
      });
    }
  });

  it("answers malformed JSON 400, another content type 415, an oversized body 413", async () => {
    const { call, user } = await setup({ limits: { jsonBodyBytes: 1000 } });
    const alice = await user("alice@example.com");
    const json = { "content-type": "application/json" };
    const malformed = await call("POST", "/api/restricted/datalist", {
      as: alice,
      body: "{bad",
      headers: json,
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error, "validation_failed");
    const text = await call("POST", "/api/restricted/datalist", {
      as: alice,
      body: "list_name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(text.status, 415);
    assert.equal(text.body.error, "unsupported_media_type");
    const big = await call("POST", "/api/restricted/datalist", {
      as: alice,
      body: { settings: { list_name: "x".repeat(2000) } },
    });
    assert.equal(big.status, 413);
    assert.equal(big.body.error, "payload_too_large");
    const empty = await call("POST", "/api/restricted/datalist", { as: alice, headers: json });
    assert.equal(empty.status, 400);
  });

  it("turns an unexpected failure into a bare 500 and reports it", async () => {
    const broken = createMemoryStore();
    const failing: Store = {
      ...broken,
      query: async () => {
        throw new Error("disk on fire at /secret/path");
      },
    };
    const reported: unknown[] = [];
    const service = createFormService({
      store: failing,
      webhookPollMs: 0,
      onError: (error) => reported.push(error),
    });
    const alice = await service.admin.createAccount({ email: "alice@example.com" });
    const { status, body } = await request(service, "GET", "/api/restricted/user/form", {
      as: alice,
    });
    assert.equal(status, 500);
    assert.equal(body.error, "internal_error");
    assert.ok(!JSON.stringify(body).includes("secret"));
    assert.equal(reported.length, 1);
  });
});

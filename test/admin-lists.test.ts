import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService } from "../src/index.ts";
import type { Store } from "../src/ports/index.ts";
import { request, setup, type TestUser } from "./helpers.ts";

const admin = { AdminSecret: "s3cret-admin" };
const restricted = "/api/restricted/user/form";
const unknownGuid = "01234567-89ab-7def-8123-456789abcdef";

/** A service with an admin secret, and the partner customer's account besides. */
async function withAccounts() {
  const env = await setup({ adminSecret: admin.AdminSecret });
  const alice = await env.user("alice@example.com");
  const bob = await env.user("bob@example.com");
  const partner = await env.service.admin.createPartner({ name: "Acme" });
  const customer = await env.call("POST", "/api/restricted/partner/user", {
    headers: { PartnerId: partner.partner_id, PartnerSecret: partner.partner_secret },
    body: { email: "customer@example.com" },
  });
  assert.equal(customer.status, 200);
  return { ...env, alice, bob, customerId: customer.body.id as string };
}

const tokensPath = (userId: string) => `/api/admin/accounts/${encodeURIComponent(userId)}/tokens`;

describe("admin API: listing accounts and tokens, revoking tokens", () => {
  it("lists local accounts oldest first, without partner customers or secrets", async () => {
    const { service, call, alice, bob, customerId } = await withAccounts();
    const listed = await call("GET", "/api/admin/accounts", { headers: admin });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.map((a: { user_id: string; email: string }) => [a.user_id, a.email]),
      [
        [alice.user_id, "alice@example.com"],
        [bob.user_id, "bob@example.com"],
      ],
    );
    assert.deepEqual(Object.keys(listed.body[0]).sort(), ["created_date_utc", "email", "user_id"]);
    assert.ok(!JSON.stringify(listed.body).includes(customerId));
    assert.deepEqual(await service.admin.listAccounts(), listed.body);
  });

  it("lists an account's tokens with no secret or hash, and a customer's too", async () => {
    const { service, call, alice, bob, customerId } = await withAccounts();
    const second = await service.admin.createToken(alice.user_id);
    const listed = await call("GET", tokensPath(alice.user_id), { headers: admin });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.map((t: { token_id: string }) => t.token_id),
      [alice.token_id, second.token_id],
    );
    assert.deepEqual(Object.keys(listed.body[0]).sort(), ["created_date_utc", "token_id"]);
    const text = JSON.stringify(listed.body);
    assert.ok(!text.includes(alice.token_secret) && !text.includes("hash"));
    assert.deepEqual(await service.admin.listTokens(alice.user_id), listed.body);
    assert.deepEqual(
      (await service.admin.listTokens(bob.user_id)).map((t) => t.token_id),
      [bob.token_id],
    );
    const issued = await service.admin.createToken(customerId);
    assert.deepEqual(
      (await service.admin.listTokens(customerId)).map((t) => t.token_id),
      [issued.token_id],
    );
  });

  it("revokes a token at once, leaves the user's other tokens, and 404s a second time", async () => {
    const { call, alice, bob } = await withAccounts();
    const second = await call("POST", tokensPath(alice.user_id), { headers: admin });
    const other: TestUser = { ...alice, ...second.body };
    assert.equal((await call("GET", restricted, { as: alice })).status, 200);
    const revoked = await call("DELETE", `/api/admin/tokens/${alice.token_id.toUpperCase()}`, {
      headers: admin,
    });
    assert.equal(revoked.status, 200);
    assert.deepEqual(revoked.body, {
      id: alice.token_id,
      message: "Token revoked",
      action_successful: true,
      error: "",
    });
    assert.equal((await call("GET", restricted, { as: alice })).status, 401);
    assert.equal((await call("GET", restricted, { as: other })).status, 200);
    assert.equal((await call("GET", restricted, { as: bob })).status, 200);
    const listed = await call("GET", tokensPath(alice.user_id), { headers: admin });
    assert.deepEqual(
      listed.body.map((t: { token_id: string }) => t.token_id),
      [other.token_id],
    );
    const again = await call("DELETE", `/api/admin/tokens/${alice.token_id}`, { headers: admin });
    assert.equal(again.status, 404);
    assert.equal(again.body.error, "not_found");
    const unknown = await call("DELETE", `/api/admin/tokens/${unknownGuid}`, { headers: admin });
    assert.equal(unknown.status, 404);
  });

  it("answers 400 for malformed ids and 404 for an unknown account", async () => {
    const { service, call } = await withAccounts();
    for (const path of [
      tokensPath("nobody"),
      tokensPath(`local|${unknownGuid}x`),
      "/api/admin/accounts/local%E0%A4%A/tokens",
      "/api/admin/tokens/not-a-guid",
      "/api/admin/tokens/%E0%A4%A",
    ]) {
      const method = path.includes("/tokens/") ? "DELETE" : "GET";
      const { status, body } = await call(method, path, { headers: admin });
      assert.equal(status, 400, path);
      assert.equal(body.error, "validation_failed");
      assert.equal(body.action_successful, false);
      assert.equal(body.issues.length, 1);
    }
    const missing = await call("GET", tokensPath(`local|${unknownGuid}`), { headers: admin });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, "Account not found");
    await assert.rejects(service.admin.revokeToken("nope"), { status: 400 });
    await assert.rejects(service.admin.listTokens(`local|${unknownGuid}`), { status: 404 });
  });

  it("needs the right AdminSecret, and does not exist without one", async () => {
    const { call, alice } = await withAccounts();
    const routes = [
      ["GET", "/api/admin/accounts"],
      ["GET", tokensPath(alice.user_id)],
      ["DELETE", `/api/admin/tokens/${alice.token_id}`],
    ] as const;
    for (const [method, path] of routes) {
      for (const headers of [{}, { AdminSecret: "wrong" }] as Record<string, string>[]) {
        assert.equal((await call(method, path, { headers })).status, 401, `${method} ${path}`);
      }
    }
    assert.equal((await call("GET", restricted, { as: alice })).status, 200);
    const bare = await setup();
    for (const [method, path] of routes) {
      const { status, body } = await bare.call(method, path, { headers: admin });
      assert.equal(status, 404, `${method} ${path}`);
      assert.equal(body.error, "not_found");
    }
  });

  it("takes back a token, or an account, whose list entry cannot be written", async () => {
    const store = createMemoryStore();
    let failLists = false;
    const tokenIds: string[] = [];
    const failing: Store = {
      ...store,
      create: (collection, partition, record) => {
        if (collection === "tokens") tokenIds.push(record.id);
        return failLists && ["account_tokens", "local_accounts"].includes(collection)
          ? Promise.reject(new Error("list unavailable"))
          : store.create(collection, partition, record);
      },
    };
    const service = createFormService({ store: failing, webhookPollMs: 0 });
    const alice = await service.admin.createAccount({ email: "alice@example.com" });
    failLists = true;
    await assert.rejects(service.admin.createToken(alice.user_id), /list unavailable/);
    await assert.rejects(service.admin.createAccount({ email: "bob@example.com" }), /unavailable/);
    failLists = false;
    assert.deepEqual(
      (await service.admin.listTokens(alice.user_id)).map((t) => t.token_id),
      [alice.token_id],
    );
    const kept = await Promise.all(tokenIds.map((id) => store.get("tokens", id, id)));
    assert.deepEqual(
      kept.map((entry) => entry?.record.id ?? null),
      [alice.token_id, null],
    );
    const bob = await service.admin.createAccount({ email: "bob@example.com" });
    assert.deepEqual(
      (await service.admin.listAccounts()).map((a) => a.email),
      ["alice@example.com", "bob@example.com"],
    );
    assert.equal((await request(service, "GET", restricted, { as: bob })).status, 200);
  });
});

/**
 * Failed-login throttling (docs/design.md §17) and the one rule for empty credential headers
 * (docs/design.md §2), through `service.fetch` with the client address a host passes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, type FormServiceOptions } from "../../src/index.ts";
import { countingStore } from "../counting-store.ts";
import { conformingFetch, formInput, type Send, type TestUser } from "../helpers.ts";
import { customerBody, partnerCalls, tokenSecret } from "../partners/setup.ts";

const adminSecret = "the admin secret of these tests";
const attacker = "203.0.113.66";
const owner = "198.51.100.7";

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  body: any;
}

/** A service with a clock the test moves, one account with a form, and one partner. */
async function throttled(rateLimits: FormServiceOptions["rateLimits"] = {}) {
  const clock = { now: new Date("2026-11-27T10:00:00.000Z") };
  const storeCalls: string[] = [];
  const service = createFormService({
    store: countingStore(createMemoryStore(), storeCalls),
    adminSecret,
    rateLimits: { publicPerMinute: 0, credentialPerMinute: 0, ...rateLimits },
    now: () => clock.now,
    webhookPollMs: 0,
    sweepIntervalMs: 0,
    partners: { tokenSecret },
  });
  const send = async (
    method: string,
    path: string,
    from: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ): Promise<Answer> => {
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
  const user = (await service.admin.createAccount({ email: "owner@example.com" })) as TestUser;
  const as = (who: TestUser) => ({ TokenId: who.token_id, TokenSecret: who.token_secret });
  const forged = (who: TestUser, n = 0) => ({ TokenId: who.token_id, TokenSecret: `wrong ${n}` });
  const form = await send("POST", "/api/restricted/form", owner, as(user), formInput("Guarded"));
  assert.equal(form.status, 200);
  const formId = form.body.id as string;
  const listForms = (from: string, headers: Record<string, string>) =>
    send("GET", "/api/restricted/user/form", from, headers);
  const call = (method: string, path: string, extra: Send = {}) =>
    send(method, path, owner, extra.headers, extra.body);
  const partner = partnerCalls(call, await service.admin.createPartner({ name: "Acme" }));
  return { service, clock, storeCalls, send, user, as, forged, formId, listForms, partner };
}

function assertThrottled(answer: Answer) {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  assert.equal(answer.body.error, "rate_limited");
  assert.equal(answer.body.action_successful, false);
  assert.equal(answer.body.message, "Too many failed authentications; try again later");
  const retryAfter = Number(answer.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
}

describe("failed-login throttling (docs/design.md §17)", () => {
  it("refuses an address after 10 wrong TokenSecrets, right or wrong, before any lookup", async () => {
    const env = await throttled();
    for (let n = 0; n < 10; n++)
      assert.equal((await env.listForms(attacker, env.forged(env.user, n))).status, 401);
    assertThrottled(await env.listForms(attacker, env.forged(env.user, 10)));
    const other = (await env.service.admin.createAccount({ email: "x@example.com" })) as TestUser;
    env.storeCalls.length = 0;
    // The address is refused whatever it claims next: another id, even the right secret.
    assertThrottled(await env.listForms(attacker, env.forged(other)));
    assertThrottled(await env.listForms(attacker, env.as(env.user)));
    assert.deepEqual(env.storeCalls, [], "a refused guess costs no store read");
    // The owner, elsewhere, is not slowed down; nor is an anonymous request of the attacker.
    assert.equal((await env.listForms(owner, env.as(env.user))).status, 200);
    assert.equal((await env.send("GET", `/api/form/${env.formId}`, attacker)).status, 200);
    // A minute after the first failure, the address may try again.
    env.clock.now = new Date(env.clock.now.getTime() + 60_000);
    assert.equal((await env.listForms(attacker, env.as(env.user))).status, 200);
  });

  it("counts concurrent guesses exactly: of 40 at once, 10 are compared", async () => {
    const env = await throttled();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => env.listForms(attacker, env.forged(env.user, n))),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 401).length, 10);
    assert.equal(statuses.filter((status) => status === 429).length, 30);
  });

  it("refuses an id guessed from many addresses to those addresses, never to its owner", async () => {
    const env = await throttled();
    const guessers = Array.from({ length: 10 }, (_, n) => `192.0.2.${n + 1}`);
    for (const [n, address] of guessers.entries())
      assert.equal((await env.listForms(address, env.forged(env.user, n))).status, 401);
    // Each address failed once (under its own limit), but the id has had 10 failures.
    for (const address of guessers) {
      assertThrottled(await env.listForms(address, env.forged(env.user)));
      assertThrottled(await env.listForms(address, env.as(env.user)));
    }
    // A new address gets one guess at the id, then is refused for it.
    assert.equal((await env.listForms("192.0.2.200", env.forged(env.user))).status, 401);
    assertThrottled(await env.listForms("192.0.2.200", env.forged(env.user)));
    // The block is per id: the guessers' own credentials still work.
    const mine = (await env.service.admin.createAccount({ email: "g@example.com" })) as TestUser;
    assert.equal((await env.listForms(guessers[0] ?? "", env.as(mine))).status, 200);
    // The owner, from an address that never failed, passes every time.
    for (let n = 0; n < 3; n++)
      assert.equal((await env.listForms(owner, env.as(env.user))).status, 200);
  });

  it("never lets an attacker's failures at a TokenId answer the owner 429 elsewhere", async () => {
    const env = await throttled();
    for (let n = 0; n < 30; n++) {
      const guess = await env.listForms(attacker, env.forged(env.user, n));
      assert.equal(guess.status, n < 10 ? 401 : 429);
      assert.equal((await env.listForms(owner, env.as(env.user))).status, 200);
    }
  });

  it("throttles guesses of the AdminSecret from one address", async () => {
    const env = await throttled();
    for (let n = 0; n < 10; n++)
      assert.equal((await adminCall(env, attacker, `guess ${n}`)).status, 401);
    assertThrottled(await adminCall(env, attacker, "guess 10"));
    assertThrottled(await adminCall(env, attacker, adminSecret));
    assert.equal((await adminCall(env, owner, adminSecret)).status, 200);
  });

  it("throttles guesses of the AdminSecret spread over addresses, as one id", async () => {
    const env = await throttled();
    const guessers = Array.from({ length: 10 }, (_, n) => `192.0.2.${n + 1}`);
    for (const address of guessers)
      assert.equal((await adminCall(env, address, "wrong")).status, 401);
    for (const address of guessers) assertThrottled(await adminCall(env, address, adminSecret));
    assert.equal((await adminCall(env, owner, adminSecret)).status, 200);
  });

  it("throttles guesses of a PartnerSecret", async () => {
    const env = await throttled();
    const users = (from: string, secret: string) =>
      env.send("GET", "/api/restricted/partner/users", from, {
        PartnerId: env.partner.partner.partner_id,
        PartnerSecret: secret,
      });
    for (let n = 0; n < 10; n++) assert.equal((await users(attacker, `guess ${n}`)).status, 401);
    assertThrottled(await users(attacker, env.partner.partner.partner_secret));
    assert.equal((await users(owner, env.partner.partner.partner_secret)).status, 200);
  });

  it("does not count customer login tokens, missing secrets, or unknown addresses", async () => {
    const env = await throttled();
    await env.partner.addCustomer(customerBody("carla@example.com"));
    const jwt = await env.partner.login("carla@example.com");
    const partnerAccountId = env.partner.partner.partner_id;
    const path = `/api/restricted/user/form?partnerAccountId=${partnerAccountId}`;
    for (let n = 0; n < 12; n++) {
      const forgedJwt = await env.send("GET", path, attacker, { Authorization: `Bearer ${n}` });
      assert.equal(forgedJwt.status, 401);
      const noSecret = await env.listForms(attacker, { TokenId: env.user.token_id });
      assert.equal(noSecret.status, 401);
      const emptyAdmin = await env.send("GET", "/api/admin/accounts", attacker, {
        AdminSecret: "",
      });
      assert.equal(emptyAdmin.status, 401);
      assert.equal((await env.listForms("", env.forged(env.user, n))).status, 401);
    }
    const answer = await env.send("GET", path, attacker, { Authorization: `Bearer ${jwt}` });
    assert.equal(answer.status, 200);
    assert.equal((await env.listForms(attacker, env.as(env.user))).status, 200);
  });

  it("takes its limits from the rateLimits option, 0 turning them off", async () => {
    const env = await throttled({ failedAuthPerAddressPerMinute: 3, failedAuthPerIdPerMinute: 0 });
    for (let n = 0; n < 3; n++)
      assert.equal((await env.listForms(attacker, env.forged(env.user, n))).status, 401);
    assertThrottled(await env.listForms(attacker, env.forged(env.user)));
    const off = await throttled({ failedAuthPerAddressPerMinute: 0, failedAuthPerIdPerMinute: 0 });
    for (let n = 0; n < 30; n++)
      assert.equal((await off.listForms(attacker, off.forged(off.user, n))).status, 401);
    assert.throws(
      () =>
        createFormService({
          store: createMemoryStore(),
          rateLimits: { failedAuthPerIdPerMinute: 1.5 },
        }),
      /rateLimits.failedAuthPerIdPerMinute must be a whole number/,
    );
  });
});

/** A1 (list accounts) with `secret` as the AdminSecret, from `from`. */
function adminCall(env: Awaited<ReturnType<typeof throttled>>, from: string, secret: string) {
  return env.send("GET", "/api/admin/accounts", from, { AdminSecret: secret });
}

describe("empty credential headers count as absent (docs/design.md §2)", () => {
  const empty = ["", "   "];

  it("account token: empty TokenId and TokenSecret beside a customer login token", async () => {
    const env = await throttled();
    await env.partner.addCustomer(customerBody("carla@example.com"));
    const jwt = await env.partner.login("carla@example.com");
    const path = `/api/restricted/user/form?partnerAccountId=${env.partner.partner.partner_id}`;
    for (const value of empty) {
      const headers = { Authorization: `Bearer ${jwt}`, TokenId: value, TokenSecret: value };
      assert.equal((await env.send("GET", path, owner, headers)).status, 200);
    }
    // Only one of the pair, with a value, is still incomplete.
    const alone = await env.listForms(owner, { TokenId: env.user.token_id, TokenSecret: "" });
    assert.equal(alone.status, 401);
    assert.equal(alone.body.message, "Both TokenId and TokenSecret are required");
  });

  it("customer login token: an empty Authorization or a bare Bearer", async () => {
    const env = await throttled();
    for (const value of [...empty, "Bearer", "Bearer   "]) {
      const asOwner = await env.listForms(owner, { Authorization: value, ...env.as(env.user) });
      assert.equal(asOwner.status, 200, value);
      // With empty account-token headers too, the request is anonymous.
      const headers = { Authorization: value, TokenId: "", TokenSecret: " " };
      assert.equal((await env.send("GET", `/api/form/${env.formId}`, owner, headers)).status, 200);
    }
    const broken = { Authorization: "Bearer two words", ...env.as(env.user) };
    assert.equal((await env.listForms(owner, broken)).status, 401, "a bearer value is checked");
  });

  it("partner credentials: empty account-token and Authorization headers beside them", async () => {
    const env = await throttled();
    for (const value of empty) {
      const answer = await env.partner.asPartner("GET", "/api/restricted/partner/users", {
        headers: { TokenId: value, TokenSecret: value, Authorization: value },
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const missing = await env.send("GET", "/api/restricted/partner/users", owner, {
        PartnerId: value,
        PartnerSecret: env.partner.partner.partner_secret,
      });
      assert.equal(missing.status, 401);
      assert.equal(missing.body.message, "Both PartnerId and PartnerSecret are required");
    }
  });

  it("admin secret: empty account-token headers beside it; an empty AdminSecret is missing", async () => {
    const env = await throttled();
    for (const value of empty) {
      const headers = { AdminSecret: adminSecret, TokenId: value, TokenSecret: value };
      assert.equal((await env.send("GET", "/api/admin/accounts", owner, headers)).status, 200);
      const missing = await env.send("GET", "/api/admin/accounts", owner, { AdminSecret: value });
      assert.equal(missing.status, 401);
      assert.equal(missing.body.message, "A valid AdminSecret is required");
    }
  });
});

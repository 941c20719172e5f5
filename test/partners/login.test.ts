import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import { formInput } from "../helpers.ts";
import {
  customerBody,
  type PartnerEnv,
  partnerCalls,
  payloadOf,
  tokenSecret,
  withPartner,
  withPartnerAccountId,
} from "./setup.ts";

const forms = "/api/restricted/user/form";

async function withCustomer(options: Parameters<typeof withPartner>[0] = {}) {
  const env = await withPartner(options);
  const customerId = await env.addCustomer(customerBody("carla@example.com"));
  return { ...env, customerId, jwt: await env.login("carla@example.com") };
}

/** Calls F4 with a bearer token and a partnerAccountId, as given. */
function callWith(env: PartnerEnv, jwt: string, partnerAccountId: string | null) {
  const path = partnerAccountId === null ? forms : withPartnerAccountId(forms, partnerAccountId);
  return env.call("GET", path, { headers: { Authorization: `Bearer ${jwt}` } });
}

function sign(header: object, payload: object, key = tokenSecret): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString("base64url");
  const body = `${encode(header)}.${encode(payload)}`;
  return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
}

describe("P1 customer login token", () => {
  it("answers the envelope with an HS256 JWT of the customer in `message`", async () => {
    const env = await withCustomer();
    const answer = await env.asPartner("POST", "/api/restricted/partner/userauth", {
      headers: { PartnerCustomerEmail: "Carla@Example.com" },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.id, "");
    assert.equal(answer.body.action_successful, true);
    assert.equal(answer.body.error, "");
    const [header = ""] = answer.body.message.split(".");
    assert.deepEqual(JSON.parse(Buffer.from(header, "base64url").toString()), {
      alg: "HS256",
      typ: "JWT",
    });
    const iat = Date.parse("2026-11-15T10:00:00.000Z") / 1000;
    assert.deepEqual(payloadOf(answer.body.message), {
      email: "carla@example.com",
      partner_id: env.partner.partner_id,
      sub: env.customerId,
      iat,
      exp: iat + 3600,
    });
  });

  it("refuses a missing or malformed PartnerCustomerEmail, and unknown customers", async () => {
    const env = await withCustomer();
    await env.user("local@example.com");
    const path = "/api/restricted/partner/userauth";
    assert.equal((await env.asPartner("POST", path)).status, 400);
    const cases: [string, number][] = [
      ["not an e-mail", 400],
      ["nobody@example.com", 404],
      ["local@example.com", 404],
    ];
    for (const [email, status] of cases) {
      const answer = await env.asPartner("POST", path, {
        headers: { PartnerCustomerEmail: email },
      });
      assert.equal(answer.status, status, email);
    }
  });

  it("takes its lifetime from the options", async () => {
    const env = await withCustomer({ partners: { tokenLifetimeSeconds: 60 } });
    const { iat, exp } = payloadOf(env.jwt);
    assert.equal(exp - iat, 60);
    env.clock.now = new Date(env.clock.now.getTime() + 59_000);
    assert.equal((await env.asCustomer(env.jwt, "GET", forms)).status, 200);
    env.clock.now = new Date(env.clock.now.getTime() + 2_000);
    assert.equal((await env.asCustomer(env.jwt, "GET", forms)).status, 401);
  });

  it("refuses signing keys shorter than 32 bytes and bad lifetimes", () => {
    const store = createMemoryStore();
    assert.throws(
      () => createFormService({ store, partners: { tokenSecret: "short" } }),
      RangeError,
    );
    assert.throws(
      () => createFormService({ store, partners: { tokenLifetimeSeconds: 0 } }),
      RangeError,
    );
  });
});

describe("P2 calls on behalf of a customer", () => {
  it("acts as the customer on any route, with or without a slash before the query", async () => {
    const env = await withCustomer();
    const created = await env.asCustomer(env.jwt, "POST", "/api/restricted/form", {
      body: formInput("Carla's form"),
    });
    assert.equal(created.status, 200);
    const listed = await env.asCustomer(env.jwt, "GET", `${forms}/`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.results.map((form: { id: string }) => form.id),
      [created.body.id],
    );
    const braces = await callWith(env, env.jwt, `{${env.partner.partner_id.toUpperCase()}}`);
    assert.equal(braces.status, 200);
    const users = await env.asCustomer(
      env.jwt,
      "GET",
      `/api/restricted/form/${created.body.id}/usersecurity`,
    );
    assert.deepEqual(
      users.body.results.map((record: { granted_to_user_id: string }) => record.granted_to_user_id),
      [env.customerId],
    );
  });

  it("answers 401 to a token of another partner, expired, altered, unsigned or foreign", async () => {
    const env = await withCustomer();
    const other = partnerCalls(env.call, await env.service.admin.createPartner({ name: "Other" }));
    await other.addCustomer(customerBody("olga@example.com"));
    const olga = await other.login("olga@example.com");
    assert.equal((await callWith(env, olga, other.partner.partner_id)).status, 200);
    const claims = payloadOf(env.jwt);
    const [header = "", , signature = ""] = env.jwt.split(".");
    const altered = Buffer.from(JSON.stringify({ ...claims, sub: payloadOf(olga).sub }));
    const cases: [string, string, string | null][] = [
      ["another partner's token", olga, env.partner.partner_id],
      ["a mismatched partnerAccountId", env.jwt, other.partner.partner_id],
      ["no partnerAccountId", env.jwt, null],
      ["an empty partnerAccountId", env.jwt, ""],
      [
        "an altered payload",
        `${header}.${altered.toString("base64url")}.${signature}`,
        env.partner.partner_id,
      ],
      [
        "alg none",
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${env.jwt.split(".")[1]}.`,
        env.partner.partner_id,
      ],
      ["HS512", sign({ alg: "HS512", typ: "JWT" }, claims), env.partner.partner_id],
      [
        "another key",
        sign({ alg: "HS256", typ: "JWT" }, claims, `${tokenSecret}!`),
        env.partner.partner_id,
      ],
      [
        "a missing claim",
        sign({ alg: "HS256" }, { ...claims, partner_id: undefined }),
        env.partner.partner_id,
      ],
      ["garbage", "not.a.jwt", env.partner.partner_id],
    ];
    for (const [what, jwt, partnerAccountId] of cases) {
      const answer = await callWith(env, jwt, partnerAccountId);
      assert.equal(answer.status, 401, what);
      assert.equal(answer.body.error, "unauthorized", what);
    }
    assert.equal(
      (await callWith(env, sign({ alg: "HS256" }, claims), env.partner.partner_id)).status,
      200,
    );
    env.clock.now = new Date(env.clock.now.getTime() + 3601_000);
    const expired = await callWith(env, env.jwt, env.partner.partner_id);
    assert.equal(expired.status, 401);
    assert.match(expired.body.message, /expired/);
  });

  it("refuses a bearer token together with account-token headers", async () => {
    const env = await withCustomer();
    const alice = await env.user("alice@example.com");
    const answer = await env.asCustomer(env.jwt, "GET", forms, { as: alice });
    assert.equal(answer.status, 401);
  });

  it("refuses a token that works for a service with another key", async () => {
    const env = await withCustomer();
    const elsewhere = await withPartner({ partners: { tokenSecret: `${tokenSecret}, elsewhere` } });
    const answer = await elsewhere.call(
      "GET",
      withPartnerAccountId(forms, env.partner.partner_id),
      {
        headers: { Authorization: `Bearer ${env.jwt}` },
      },
    );
    assert.equal(answer.status, 401);
  });
});

/**
 * The Stripe adapter against the Payments conformance cases: once against the local Stripe
 * server (test/payments/stripe-server.ts), and once against Stripe's test mode when
 * `STRIPE_SECRET_KEY` (a `sk_test_…` key) is set; events are signed with
 * `STRIPE_WEBHOOK_SECRET` there, or a made-up secret, as the cases only verify them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createStripePayments } from "../../adapters/stripe/index.ts";
import { PaymentRefusedError } from "../../src/ports/index.ts";
import type { PaymentsConformanceOptions } from "../../src/testing/index.ts";
import { runPaymentsConformance } from "../../src/testing/node-test.ts";
import { stripeEvent, stripeHeaders, stripeId } from "../payments/stripe-events.ts";
import { type StripeServer, startStripeServer } from "../payments/stripe-server.ts";

/** The conformance options of the adapter over `secretKey` at `apiUrl`. */
function stripeOptions(
  name: string,
  keys: () => { secretKey: string; webhookSecret: string; apiUrl?: string },
): PaymentsConformanceOptions {
  return {
    name,
    create: () => createStripePayments({ ...keys(), timeoutMs: 20_000 }),
    event: (kind, state) => new TextEncoder().encode(JSON.stringify(stripeEvent(kind, state))),
    sign: (body, signing = {}) =>
      stripeHeaders(
        body,
        signing.forged ? "whsec_forged" : keys().webhookSecret,
        signing.ageSeconds ?? 0,
      ),
    unknownCheckout: () => stripeId("cs_test"),
  };
}

let server: StripeServer;
before(async () => {
  server = await startStripeServer();
});
after(async () => {
  assert.deepEqual(server.problems, [], "every answer matched Stripe's published schemas");
  await server.close();
});

runPaymentsConformance(
  stripeOptions("stripe, local server", () => ({
    secretKey: server.secretKey,
    webhookSecret: server.webhookSecret,
    apiUrl: server.url,
  })),
);

const live = process.env.STRIPE_SECRET_KEY ?? "";
runPaymentsConformance(
  stripeOptions("stripe, test mode", () => ({
    secretKey: live,
    webhookSecret: process.env.STRIPE_WEBHOOK_SECRET || "whsec_conformance",
  })),
  {
    skip:
      !live.startsWith("sk_test_") && "STRIPE_SECRET_KEY (a test-mode key, sk_test_…) is not set",
  },
);

describe("stripe payments", () => {
  it("reads sessions paid, completed with a delayed payment that failed or arrived, or expired", async () => {
    const payments = createStripePayments({
      secretKey: server.secretKey,
      webhookSecret: server.webhookSecret,
      apiUrl: server.url,
    });
    const start = (reference: string) =>
      payments.startCheckout({
        amount: 500,
        currency: "EUR",
        description: "Ticket",
        reference,
        idempotencyKey: reference,
        successUrl: "https://forms.example.com/paid",
        cancelUrl: "https://forms.example.com/unpaid",
        expiresAt: new Date(Date.now() + 5 * 60_000),
      });
    const paid = await start(stripeId("ref"));
    assert.ok(paid.expiresAt.getTime() >= Date.now() + 30 * 60_000, "moved into Stripe's window");
    const event = await server.pay(paid.checkout);
    assert.equal((await payments.parseEvent(event.body, event.headers))?.status, "paid");
    assert.equal((await payments.readCheckout(paid.checkout)).status, "paid");
    assert.equal((await payments.expireCheckout(paid.checkout)).status, "paid");

    const delayed = await start(stripeId("ref"));
    const completed = await server.complete(delayed.checkout);
    assert.equal((await payments.parseEvent(completed.body, completed.headers))?.status, "pending");
    assert.equal((await payments.readCheckout(delayed.checkout)).status, "pending");
    const failed = await server.fail(delayed.checkout);
    assert.equal((await payments.parseEvent(failed.body, failed.headers))?.status, "failed");
    assert.equal((await payments.readCheckout(delayed.checkout)).status, "failed");
    assert.equal((await payments.expireCheckout(delayed.checkout)).status, "failed");

    const arrived = await start(stripeId("ref"));
    await server.complete(arrived.checkout);
    const succeeded = await server.succeed(arrived.checkout);
    assert.equal((await payments.parseEvent(succeeded.body, succeeded.headers))?.status, "paid");
    assert.equal((await payments.readCheckout(arrived.checkout)).status, "paid");

    const lapsed = await start(stripeId("ref"));
    const expired = await server.expire(lapsed.checkout);
    const state = await payments.parseEvent(expired.body, expired.headers);
    assert.equal(state?.status, "expired");
    assert.equal(state?.amount, 500);
  });

  it("moves an expiry into Stripe's window once per key, so that a retry repeats it", async () => {
    const clock = { now: Date.now() };
    const payments = createStripePayments({
      secretKey: server.secretKey,
      webhookSecret: server.webhookSecret,
      apiUrl: server.url,
      now: () => clock.now,
    });
    const asked = {
      amount: 900,
      currency: "EUR",
      description: "Ticket",
      reference: "sub-soon",
      idempotencyKey: stripeId("key"),
      successUrl: "https://forms.example.com/paid",
      cancelUrl: "https://forms.example.com/unpaid",
      expiresAt: new Date(clock.now + 10 * 60_000),
    };
    const first = await payments.startCheckout(asked);
    assert.ok(first.expiresAt.getTime() >= clock.now + 31 * 60_000);
    clock.now += 30_000;
    assert.deepEqual(await payments.startCheckout(asked), first);
    const late = { ...asked, expiresAt: new Date(clock.now + 48 * 3_600_000), idempotencyKey: "k" };
    const capped = await payments.startCheckout(late);
    assert.ok(capped.expiresAt.getTime() <= clock.now + 24 * 3_600_000 - 59_000);
  });

  it("fails plainly when Stripe cannot be reached or refuses the key", async () => {
    const unreachable = createStripePayments({
      secretKey: "sk_test_x",
      webhookSecret: "whsec_x",
      apiUrl: "http://127.0.0.1:9",
    });
    await assert.rejects(
      unreachable.readCheckout("cs_test_x"),
      (error) => !(error instanceof PaymentRefusedError),
    );
    const wrongKey = createStripePayments({
      secretKey: "sk_test_wrong",
      webhookSecret: "whsec_x",
      apiUrl: server.url,
    });
    await assert.rejects(
      wrongKey.readCheckout("cs_test_x"),
      (error) => !(error instanceof PaymentRefusedError),
    );
  });

  it("validates its options", () => {
    const make = (options: Record<string, unknown>) => () =>
      createStripePayments({ secretKey: "sk_test_x", webhookSecret: "whsec_x", ...options });
    assert.throws(make({ apiUrl: "not a url" }), /stripe payments: apiUrl/);
    assert.throws(make({ apiUrl: "ftp://127.0.0.1" }), /stripe payments: apiUrl/);
    assert.throws(make({ apiUrl: "http://127.0.0.1/v1" }), /stripe payments: apiUrl/);
    assert.throws(make({ secretKey: "" }), /secretKey/);
    assert.throws(make({ webhookSecret: "" }), /webhookSecret/);
  });
});

/**
 * The local Stripe server's own behaviour beyond what the conformance cases use: its
 * checkout page (pay or go back, the event posted to `webhookUrl`), its refusals in Stripe's
 * shape, and idempotency keys reused with other parameters.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import Stripe from "stripe";
import { createStripePayments } from "../../adapters/stripe/index.ts";
import { startStripeServer } from "./stripe-server.ts";

/** A webhook endpoint on 127.0.0.1 that keeps what it receives. */
async function endpoint() {
  const received: { body: Uint8Array; headers: Headers }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      received.push({ body: new Uint8Array(Buffer.concat(chunks)), headers });
      response.end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  return { url, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("the local Stripe server", () => {
  it("serves a checkout page that pays, posts the event and leads back", async () => {
    const events = await endpoint();
    const stripe = await startStripeServer({ webhookUrl: events.url });
    try {
      const payments = createStripePayments({ ...stripe, apiUrl: stripe.url });
      const checkout = await payments.startCheckout({
        amount: 1999,
        currency: "EUR",
        description: "Ticket",
        reference: "sub-1",
        idempotencyKey: "key-1",
        successUrl: "https://forms.example.com/paid?session={CHECKOUT_SESSION_ID}",
        cancelUrl: "https://forms.example.com/unpaid",
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      const page = await fetch(checkout.url);
      assert.match(await page.text(), /Pay 19\.99 EUR/);
      const back = await fetch(checkout.url, {
        method: "POST",
        body: new URLSearchParams({ action: "cancel" }),
        redirect: "manual",
      });
      assert.equal(back.headers.get("location"), "https://forms.example.com/unpaid");
      assert.equal(events.received.length, 0);
      const paid = await fetch(checkout.url, {
        method: "POST",
        body: new URLSearchParams({ action: "pay" }),
        redirect: "manual",
      });
      assert.equal(paid.status, 303);
      assert.equal(
        paid.headers.get("location"),
        `https://forms.example.com/paid?session=${checkout.checkout}`,
      );
      const [event] = events.received;
      assert.ok(event);
      const state = await payments.parseEvent(event.body, event.headers);
      assert.deepEqual(
        { ...state, id: undefined },
        {
          id: undefined,
          checkout: checkout.checkout,
          reference: "sub-1",
          status: "paid",
          amount: 1999,
          currency: "EUR",
        },
      );
      assert.deepEqual(stripe.problems, []);
    } finally {
      await stripe.close();
      await events.close();
    }
  });

  it("expires a session at its expiry by its clock, its event made by expireDue", async () => {
    const clock = { now: Date.now() };
    const stripe = await startStripeServer({ now: () => clock.now });
    try {
      const payments = createStripePayments({ ...stripe, apiUrl: stripe.url });
      const { checkout } = await payments.startCheckout({
        amount: 700,
        currency: "EUR",
        description: "Ticket",
        reference: "sub-2",
        idempotencyKey: "key-2",
        successUrl: "https://forms.example.com/paid",
        cancelUrl: "https://forms.example.com/unpaid",
        expiresAt: new Date(clock.now + 3_600_000),
      });
      assert.deepEqual(await stripe.expireDue(), []);
      clock.now += 3_601_000;
      assert.equal((await payments.readCheckout(checkout)).status, "expired");
      const [expired, ...more] = await stripe.expireDue();
      assert.ok(expired);
      assert.deepEqual(more, []);
      assert.equal((await payments.parseEvent(expired.body, expired.headers))?.status, "expired");
      assert.deepEqual(await stripe.expireDue(), []);
      assert.deepEqual(stripe.events, [expired]);
    } finally {
      await stripe.close();
    }
  });

  it("answers refusals in Stripe's shape, and a reused key with other parameters", async () => {
    const stripe = await startStripeServer();
    try {
      const { port } = new URL(stripe.url);
      const client = (key: string) =>
        new Stripe(key, { host: "127.0.0.1", port, protocol: "http", maxNetworkRetries: 0 });
      await assert.rejects(client("sk_test_wrong").checkout.sessions.retrieve("cs_test_x"), {
        type: "StripeAuthenticationError",
      });
      const sessions = client(stripe.secretKey).checkout.sessions;
      const params = (amount: number) => ({
        mode: "payment" as const,
        success_url: "https://forms.example.com/paid",
        line_items: [
          {
            quantity: 1,
            price_data: { currency: "eur", unit_amount: amount, product_data: { name: "x" } },
          },
        ],
      });
      const first = await sessions.create(params(100), { idempotencyKey: "k" });
      assert.equal((await sessions.create(params(100), { idempotencyKey: "k" })).id, first.id);
      await assert.rejects(sessions.create(params(200), { idempotencyKey: "k" }), {
        type: "StripeIdempotencyError",
      });
      await assert.rejects(sessions.create({ ...params(100), expires_at: 1 }), {
        type: "StripeInvalidRequestError",
        param: "expires_at",
      });
      assert.deepEqual(stripe.problems, []);
    } finally {
      await stripe.close();
    }
  });
});

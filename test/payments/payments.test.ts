/**
 * Taking payments (docs/design.md §26) through HTTP on every store: `paymentsettings` on F2,
 * S2 on a paying form, the provider's events, and the sweep of checkouts whose event was lost.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createStripePayments } from "../../adapters/stripe/index.ts";
import { createFormService, createHttpWebhookSender } from "../../src/index.ts";
import type { CheckoutState, Payments, Store } from "../../src/ports/index.ts";
import { sectionPath } from "../engine/fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { stripeEvent, stripeHeaders, stripeId } from "./stripe-events.ts";
import { type SignedEvent, type StripeServer, startStripeServer } from "./stripe-server.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true },
  { unique_system_name: "seats_2", type: "number", label: "Seats", min: 0 },
  { unique_system_name: "total_3", type: "number", label: "Total" },
  { unique_system_name: "session_4", type: "radio", label: "Session", options: ["am", "pm"] },
  { unique_system_name: "email_5", type: "email", label: "E-mail" },
];

const paying = {
  calculatedfieldsettings: {
    fields: [{ unique_system_name: "total_3", expression: { "*": [{ var: "seats_2" }, 12.5] } }],
  },
  quantitylimitsettings: {
    inventory: [{ unique_system_name: "session_4", option: "am", quantity: 2 }],
  },
  paymentsettings: {
    enabled: true,
    currency: "eur",
    amount_field: "total_3",
    description: "{{seats_2}} seats for {{name_1}}",
  },
};

/** A service over `store` taking payments through `payments`, its owner and a paying form. */
async function payingForm(store: Store, payments: Payments | undefined, clock: { now: Date }) {
  const service = createFormService({
    store,
    payments,
    now: () => clock.now,
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true, retryBaseMs: 20 }),
    webhookPollMs: 50,
    onError: (error) => assert.fail(error instanceof Error ? error : String(error)),
  });
  // Closed by the test before the store's own hooks stop the Cosmos stand-in, or after.
  let closed: Promise<unknown> | undefined;
  const close = () => {
    closed ??= service.close();
    return closed;
  };
  after(close);
  const call = (method: string, path: string, send: Parameters<typeof request>[3] = {}) =>
    request(service, method, path, send);
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const created = await call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Dinner", fields),
  });
  const formId = created.body.id as string;
  const save = (section: string, body: unknown) =>
    call("POST", sectionPath(formId, section), { as: alice, body });
  const submit = (values: Record<string, string>) =>
    call("POST", `/api/form/${formId}/submission`, {
      body: {
        form_fields: Object.entries(values).map(([unique_system_name, submitted_value]) => ({
          unique_system_name,
          submitted_value,
        })),
      },
    });
  const read = async (id: string) =>
    (await call("GET", `/api/restricted/form/${formId}/submission/${id}`, { as: alice })).body
      .form_submission;
  const remaining = async () =>
    (await call("GET", `/api/form/${formId}`)).body.form_configuration.quantitylimitsettings
      .inventory[0].remaining as number;
  const post = (provider: string, { body, headers }: SignedEvent) =>
    call("POST", `/api/payments/${provider}/events`, {
      body: new TextDecoder().decode(body),
      headers: Object.fromEntries(headers),
    });
  return { service, close, call, alice, formId, save, submit, read, remaining, post };
}

describe("payments: paymentsettings on F2", () => {
  it("checks the section against the form and refuses payment without a payments port", async () => {
    const clock = { now: new Date() };
    const store = serviceQueriesOnly(createMemoryStore());
    const without = await payingForm(store, undefined, clock);
    // A section stored before the format existed, and any that does not enable payment, is kept.
    assert.equal((await without.save("paymentsettings", { provider: "paypal" })).status, 200);
    const refused = await without.save("paymentsettings", paying.paymentsettings);
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.issues, [
      {
        path: "enabled",
        message: "cannot be true: the service has no payments provider configured",
      },
    ]);

    const stripe = await stripeServer();
    const env = await payingForm(serviceQueriesOnly(createMemoryStore()), stripe.payments, clock);
    const bad = [
      [{ enabled: true, amount: 100 }, "currency", "is required when enabled"],
      [{ enabled: true, currency: "EURO", amount: 100 }, "currency", "must be an ISO 4217"],
      [{ enabled: true, currency: "EUR" }, "amount", "give either amount or amount_field"],
      [{ enabled: true, currency: "EUR", amount: 1.5 }, "amount", "must be a whole number"],
      [{ enabled: true, currency: "EUR", amount_field: "name_1" }, "amount_field", "neither"],
      [{ enabled: true, currency: "EUR", amount_field: "gone_9" }, "amount_field", "not a field"],
      [{ enabled: true, currency: "EUR", amount: 1, expires_after_minutes: 10 }, "expires", "30"],
      [{ enabled: true, currency: "EUR", amount: 1, description: "{{#a}}" }, "desc", "Mustache"],
    ] as const;
    for (const [body, path, message] of bad) {
      const answer = await env.save("paymentsettings", body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      const issue = answer.body.issues?.[0] ?? {};
      assert.ok(issue.path.startsWith(path) && issue.message.includes(message), issue);
    }
    // A calculated field (the calculation saved first) and a number field both carry an amount.
    assert.equal(
      (await env.save("calculatedfieldsettings", paying.calculatedfieldsettings)).status,
      200,
    );
    assert.equal((await env.save("paymentsettings", paying.paymentsettings)).status, 200);
    const seats = { ...paying.paymentsettings, amount_field: "seats_2" };
    assert.equal((await env.save("paymentsettings", seats)).status, 200);
  });
});

describe("payments: S2, the provider's events and the sweep", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`takes the money before the actions, gives back what an unpaid order took (${name})`, async () => {
      const clock = { now: new Date() };
      const stripe = await stripeServer(() => clock.now.getTime());
      const { server } = stripe;
      const env = await payingForm(serviceQueriesOnly(await open()), stripe.payments, clock);
      const receiver = await startReceiver([200]);
      const hook = await env.call("POST", `/api/restricted/form/${env.formId}/submissionwebhook`, {
        as: env.alice,
        body: { webhook_name: "orders", webhook_url: receiver.url },
      });
      assert.equal(hook.status, 200);
      for (const [section, body] of Object.entries(paying))
        assert.equal((await env.save(section, body)).status, 200, section);

      // The amount is the server's calculation, whatever the client sent for the total.
      const order = { name_1: "Ada & Bo", seats_2: "3", total_3: "0.01", session_4: "am" };
      const first = await env.submit({ ...order, email_5: "ada@example.com" });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const pending = await env.read(first.body.id);
      const checkout = pending.payment_reference as string;
      assert.equal(first.body.thanks_behaviour, "url_redirect");
      assert.equal(first.body.thanks_behaviour_redirect_url, server.session(checkout).url);
      // The description is plain text: the template's values are not HTML-escaped.
      assert.equal(server.session(checkout).description, "3 seats for Ada & Bo");
      assert.equal(first.body.actionSuccessful, true);
      assert.equal(pending.payment_status, "pending");
      assert.equal(pending.payment_amount, 3750);
      assert.equal(pending.payment_currency, "EUR");
      assert.equal(pending.payment_provider, "stripe");
      assert.match(checkout, /^cs_/);
      assert.equal(pending.payment_expires_at, undefined);
      assert.equal(await env.remaining(), 1);

      // A bad signature changes nothing; an unknown provider is not found.
      const paid = await server.pay(checkout);
      const forged = { ...paid, headers: await stripeHeaders(paid.body, "whsec_forged") };
      assert.equal((await env.post("stripe", forged)).status, 400);
      assert.equal((await env.read(first.body.id)).payment_status, "pending");
      assert.equal((await env.post("mollie", paid)).status, 404);

      // Paid: the webhook fires once, after the payment, carrying the payment fields.
      assert.equal(receiver.received.length, 0);
      const answered = await env.post("stripe", paid);
      assert.equal(answered.status, 200);
      assert.deepEqual(answered.body, { received: true });
      assert.equal((await env.read(first.body.id)).payment_status, "paid");
      await receiver.waitFor(1);
      const payload = JSON.parse(receiver.received[0]?.body ?? "{}");
      assert.equal(payload.data.form_submission.payment_status, "paid");
      assert.equal(payload.data.form_submission.payment_amount, 3750);
      // Repeated, and an expiry arriving after it: nothing changes twice.
      assert.equal((await env.post("stripe", paid)).status, 200);
      const late = await server.expire(checkout);
      assert.equal((await env.post("stripe", late)).status, 200);
      assert.equal((await env.read(first.body.id)).payment_status, "paid");
      assert.equal(await env.remaining(), 1);

      // Expired: its inventory comes back, and S7 of it gives back nothing more.
      const second = await env.submit(order);
      assert.equal(await env.remaining(), 0);
      const secondCheckout = (await env.read(second.body.id)).payment_reference;
      // An event of another checkout than its own changes nothing, unless it says paid.
      const stray = await signed(stripe, "expired", {
        checkout: stripeId("cs_test"),
        reference: `${env.formId}.${second.body.id}`,
        status: "expired",
        amount: 3750,
        currency: "EUR",
      });
      assert.equal((await env.post("stripe", stray)).status, 200);
      assert.equal((await env.read(second.body.id)).payment_status, "pending");
      assert.equal((await env.post("stripe", await server.expire(secondCheckout))).status, 200);
      assert.equal((await env.read(second.body.id)).payment_status, "expired");
      assert.equal(await env.remaining(), 1);

      // Failed, the same; the full form takes orders again.
      const third = await env.submit(order);
      assert.equal(await env.remaining(), 0);
      assert.equal((await env.submit(order)).status, 400);
      const thirdCheckout = (await env.read(third.body.id)).payment_reference;
      // A delayed method: completed but not paid yet, then its failure.
      assert.equal((await env.post("stripe", await server.complete(thirdCheckout))).status, 200);
      assert.equal((await env.read(third.body.id)).payment_status, "pending");
      assert.equal((await env.post("stripe", await server.fail(thirdCheckout))).status, 200);
      assert.equal((await env.read(third.body.id)).payment_status, "failed");
      assert.equal(await env.remaining(), 1);

      // A lost event: the sweep asks the provider once the checkout is well past its expiry.
      const fourth = await env.submit(order);
      assert.equal(await env.remaining(), 0);
      clock.now = new Date(clock.now.getTime() + 3 * 60 * 60 * 1000);
      await env.service.sweepAttachments();
      assert.equal((await env.read(fourth.body.id)).payment_status, "expired");
      assert.equal(await env.remaining(), 1);

      // Deleting an expired order gives back nothing it no longer holds.
      const path = `/api/restricted/form/${env.formId}/submission/${second.body.id}`;
      assert.equal((await env.call("DELETE", path, { as: env.alice })).status, 200);
      assert.equal(await env.remaining(), 1);

      // S5 and the export show the payment fields; only the paid order reached the webhook.
      const listed = await env.call("GET", `/api/restricted/form/${env.formId}/submissions`, {
        as: env.alice,
      });
      const statuses = listed.body.results.map((r: { payment_status: string }) => r.payment_status);
      assert.deepEqual(statuses, ["paid", "failed", "expired"]);
      const exported = await env.service.fetch(
        new Request(
          `http://localhost/api/restricted/form/${env.formId}/submissions/export?format=ndjson`,
          { headers: { TokenId: env.alice.token_id, TokenSecret: env.alice.token_secret } },
        ),
      );
      const lines = (await exported.text())
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        lines.map((line) => [line.payment_status, line.payment_amount, line.payment_currency]),
        [
          ["paid", "3750", "EUR"],
          ["failed", "3750", "EUR"],
          ["expired", "3750", "EUR"],
        ],
      );
      assert.equal(lines[0].payment_reference, checkout);
      assert.equal(receiver.received.length, 1);

      // Paid after its expiry (the respondent paid just before it ended; the event came
      // late): the money is taken, so it is paid and takes its inventory back.
      const fourthCheckout = (await env.read(fourth.body.id)).payment_reference;
      assert.equal((await env.post("stripe", await server.pay(fourthCheckout))).status, 200);
      assert.equal((await env.read(fourth.body.id)).payment_status, "paid");
      assert.equal(await env.remaining(), 0);
      await receiver.waitFor(2);

      // An order of nothing pays nothing: stored as on any form, its webhook at once.
      const free = await env.submit({ ...order, seats_2: "0", session_4: "pm" });
      assert.equal(free.body.thanks_behaviour, "inline_message");
      assert.equal((await env.read(free.body.id)).payment_status, undefined);
      await receiver.waitFor(3);
      // Every delivery recorded before the test ends: none is in flight when the store closes.
      const deliveries = `/api/restricted/form/${env.formId}/submissionwebhook/${hook.body.id}/deliveries`;
      const delivered = async () =>
        (await env.call("GET", deliveries, { as: env.alice })).body.results.filter(
          (d: { status: string }) => d.status === "delivered",
        ).length;
      while ((await delivered()) < 3) await new Promise((resolve) => setTimeout(resolve, 50));
      await env.close();
    });
  }
});

/** The local Stripe server on Stripe's clock `now`, and the adapter over it. */
async function stripeServer(now?: () => number) {
  const server = await startStripeServer(now ? { now } : {});
  after(async () => {
    assert.deepEqual(server.problems, [], "every answer matched Stripe's published schemas");
    await server.close();
  });
  const payments = createStripePayments({
    secretKey: server.secretKey,
    webhookSecret: server.webhookSecret,
    apiUrl: server.url,
  });
  return { server, payments };
}

/** An event of `kind` about the checkout `state`, signed as the server signs its own. */
async function signed(
  stripe: { server: StripeServer },
  kind: "expired",
  state: CheckoutState,
): Promise<SignedEvent> {
  const event = stripeEvent(kind, state);
  const body = new TextEncoder().encode(JSON.stringify(event));
  return { body, headers: await stripeHeaders(body, stripe.server.webhookSecret), event };
}

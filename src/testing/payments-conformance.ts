/**
 * The Payments contract as runner-neutral cases (see `src/ports/payments.ts`): every provider
 * adapter runs them unchanged, under `node:test` through `runPaymentsConformance` of
 * `formwork/testing/node`, or under any runner. The cases open real checkouts with the
 * provider (or a stand-in speaking its API) and sign events the way the provider does.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  type CheckoutRequest,
  type CheckoutState,
  PaymentEventRejectedError,
  PaymentRefusedError,
} from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";
import type {
  PaymentEventKind,
  PaymentsConformanceOptions,
  PaymentsFixture,
} from "./payments-fixture.ts";

export type {
  PaymentEventKind,
  PaymentsConformanceOptions,
  Signing,
} from "./payments-fixture.ts";

/** A checkout request of the suite: 12.50 EUR, an hour to pay, a fresh reference and key. */
function request(overrides: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return {
    amount: 1250,
    currency: "EUR",
    description: "Conformance ticket",
    reference: randomUUID(),
    idempotencyKey: randomUUID(),
    successUrl: "https://forms.example.com/paid",
    cancelUrl: "https://forms.example.com/unpaid",
    expiresAt: new Date(Math.floor(Date.now() / 1000) * 1000 + 60 * 60_000),
    ...overrides,
  };
}

/** The state a fresh checkout of `asked` must read as. */
function pendingOf(checkout: string, asked: CheckoutRequest): CheckoutState {
  const { reference, amount, currency } = asked;
  return { checkout, reference, status: "pending", amount, currency };
}

const rejected = (error: unknown) => error instanceof PaymentEventRejectedError;
const refused = (error: unknown) => error instanceof PaymentRefusedError;
const bytes = (text: string) => new TextEncoder().encode(text);

/** A case of this file: its name and its body. */
type Def = [string, (fixture: PaymentsFixture) => Promise<void>];
const it = (name: string, body: Def[1]): Def => [name, body];

/** Each kind of event and the status it reports. */
const reported: [PaymentEventKind, CheckoutState["status"]][] = [
  ["paid", "paid"],
  ["processing", "pending"],
  ["async_paid", "paid"],
  ["async_failed", "failed"],
  ["expired", "expired"],
];

const cases: Def[] = [
  it("opens a checkout: an id, a page to pay on, and the expiry asked for", async ({
    payments,
  }) => {
    assert.match(payments.provider, /^[a-z]+$/);
    const asked = request();
    const checkout = await payments.startCheckout(asked);
    assert.ok(checkout.checkout.length > 0);
    assert.match(new URL(checkout.url).protocol, /^https?:$/);
    assert.equal(checkout.expiresAt.getTime(), asked.expiresAt.getTime());
  }),

  it("gives the same checkout for the same idempotency key, another for another", async ({
    payments,
  }) => {
    const asked = request({ email: "payer@example.com" });
    const first = await payments.startCheckout(asked);
    const again = await payments.startCheckout({ ...asked });
    assert.deepEqual(again, first);
    const other = await payments.startCheckout({ ...asked, idempotencyKey: randomUUID() });
    assert.notEqual(other.checkout, first.checkout);
  }),

  it("reads a new checkout back pending, with its reference, amount and currency", async ({
    payments,
  }) => {
    const asked = request({ amount: 4200, currency: "USD" });
    const { checkout } = await payments.startCheckout(asked);
    assert.deepEqual(await payments.readCheckout(checkout), pendingOf(checkout, asked));
  }),

  it("expires an open checkout, and reads it expired afterwards", async ({ payments }) => {
    const asked = request();
    const { checkout } = await payments.startCheckout(asked);
    const expired = { ...pendingOf(checkout, asked), status: "expired" };
    assert.deepEqual(await payments.expireCheckout(checkout), expired);
    assert.deepEqual(await payments.readCheckout(checkout), expired);
    assert.deepEqual(await payments.expireCheckout(checkout), expired);
  }),

  it("reads each kind of signed event as the state it reports", async ({ payments, options }) => {
    const asked = request();
    const { checkout } = await payments.startCheckout(asked);
    const state = pendingOf(checkout, asked);
    for (const [kind, status] of reported) {
      const body = options.event(kind, state);
      const event = await payments.parseEvent(body, await options.sign(body));
      assert.ok(event, kind);
      const { id, ...rest } = event;
      assert.deepEqual(rest, { ...state, status }, kind);
      assert.ok(id.length > 0, kind);
      const again = await payments.parseEvent(body, await options.sign(body));
      assert.equal(again?.id, id, `${kind}: the same event sent again keeps its id`);
    }
  }),

  it("ignores a signed event that concerns no checkout", async ({ payments, options }) => {
    const asked = request();
    const { checkout } = await payments.startCheckout(asked);
    const body = options.event("unrelated", pendingOf(checkout, asked));
    assert.equal(await payments.parseEvent(body, await options.sign(body)), null);
  }),

  it("rejects an event with a forged, stale or missing signature", async ({
    payments,
    options,
  }) => {
    const asked = request();
    const { checkout } = await payments.startCheckout(asked);
    const body = options.event("paid", pendingOf(checkout, asked));
    const forged = await options.sign(body, { forged: true });
    await assert.rejects(payments.parseEvent(body, forged), rejected, "forged");
    const stale = await options.sign(body, { ageSeconds: 3600 });
    await assert.rejects(payments.parseEvent(body, stale), rejected, "stale");
    await assert.rejects(payments.parseEvent(body, new Headers()), rejected, "missing");
    const changed = bytes(`${new TextDecoder().decode(body)} `);
    await assert.rejects(payments.parseEvent(changed, await options.sign(body)), rejected, "body");
  }),

  it("rejects a rightly signed body that is not an event", async ({ payments, options }) => {
    for (const text of [
      "not json",
      "[]",
      '{"hello":"world"}',
      '{"type":"checkout.session.completed"}',
    ]) {
      const body = bytes(text);
      await assert.rejects(payments.parseEvent(body, await options.sign(body)), rejected, text);
    }
  }),

  it("refuses a checkout it does not know", async ({ payments, options }) => {
    const unknown = options.unknownCheckout();
    await assert.rejects(payments.readCheckout(unknown), refused, "read");
    await assert.rejects(payments.expireCheckout(unknown), refused, "expire");
  }),

  it("refuses a currency it does not take", async ({ payments }) => {
    await assert.rejects(payments.startCheckout(request({ currency: "XXX" })), refused);
  }),
];

/** Every case of the Payments conformance suite for the adapter `options` describes. */
export function paymentsConformanceCases(options: PaymentsConformanceOptions): ConformanceCase[] {
  return cases.map(([name, body]) => ({
    name,
    async run() {
      const payments = await options.create();
      try {
        await body({ payments, options });
      } finally {
        await options.cleanup?.(payments);
      }
    },
  }));
}

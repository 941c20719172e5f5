/**
 * What the payment tests need of a provider: a `Payments` port for the service, and a way to
 * make the provider's signed events, as the provider would post them.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import {
  type Checkout,
  type CheckoutRequest,
  type CheckoutState,
  type PaymentEvent,
  PaymentEventRejectedError,
  type PaymentStatus,
  type Payments,
} from "../../src/ports/payments.ts";

/** A provider under test: its port, and its events. */
export interface TestProvider {
  payments: Payments;
  /** The checkout the service opened for `reference` (the last, when several). */
  checkoutOf(reference: string): Promise<string>;
  /**
   * The provider's state of `checkout` moves to `status`, and the event it posts of it
   * (signed, or signed with another secret when `forged`).
   */
  event(checkout: string, status: PaymentStatus, forged?: boolean): Promise<SignedEvent>;
  /** `body` posted as the provider signs it (an event the test wrote itself). */
  sign(body: string): SignedEvent;
}

/** An event's body and headers, as the provider posts it. */
export interface SignedEvent {
  body: string;
  headers: Record<string, string>;
}

/**
 * A provider that keeps its checkouts in memory and signs events with HMAC-SHA256 (header
 * `test-signature: <hex>`): the service's side of the port, without the network.
 */
export function createTestProvider(secret = "whsec_test"): TestProvider {
  const checkouts = new Map<string, CheckoutState & { url: string; expiresAt: Date }>();
  const byKey = new Map<string, string>();
  const sign = (body: string, key: string) => createHmac("sha256", key).update(body).digest("hex");
  const known = (checkout: string) => {
    const found = checkouts.get(checkout);
    if (!found) throw new Error(`no checkout ${checkout}`);
    return found;
  };
  const stateOf = ({ checkout, reference, status, amount, currency }: CheckoutState) => ({
    checkout,
    reference,
    status,
    amount,
    currency,
  });
  const payments: Payments = {
    provider: "test",
    async startCheckout(request: CheckoutRequest): Promise<Checkout> {
      const again = byKey.get(request.idempotencyKey);
      const checkout = again ?? `cs_${randomUUID()}`;
      if (!again) {
        byKey.set(request.idempotencyKey, checkout);
        checkouts.set(checkout, {
          checkout,
          reference: request.reference,
          status: "pending",
          amount: request.amount,
          currency: request.currency,
          url: `https://pay.example/${checkout}`,
          expiresAt: request.expiresAt,
        });
      }
      const { url, expiresAt } = known(checkout);
      return { checkout, url, expiresAt };
    },
    async readCheckout(checkout) {
      return stateOf(known(checkout));
    },
    async expireCheckout(checkout) {
      const found = known(checkout);
      if (found.status === "pending") found.status = "expired";
      return stateOf(found);
    },
    async parseEvent(body, headers): Promise<PaymentEvent | null> {
      const text = new TextDecoder().decode(body);
      const given = Buffer.from(headers.get("test-signature") ?? "", "hex");
      const wanted = Buffer.from(sign(text, secret), "hex");
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
        throw new PaymentEventRejectedError("the signature does not verify");
      }
      return JSON.parse(text) as PaymentEvent;
    },
  };
  return {
    payments,
    async checkoutOf(reference) {
      const found = [...checkouts.values()].filter((c) => c.reference.endsWith(reference));
      const last = found.at(-1);
      if (!last) throw new Error(`no checkout for ${reference}`);
      return last.checkout;
    },
    sign(body) {
      return {
        body,
        headers: { "content-type": "application/json", "test-signature": sign(body, secret) },
      };
    },
    async event(checkout, status, forged = false) {
      const found = known(checkout);
      found.status = status;
      const event: PaymentEvent = { id: `evt_${randomUUID()}`, ...stateOf(found) };
      const body = JSON.stringify(event);
      return {
        body,
        headers: {
          "content-type": "application/json",
          "test-signature": sign(body, forged ? "whsec_other" : secret),
        },
      };
    },
  };
}

/** What the Payments conformance cases share: the adapter's options and how to sign events. */
import type { CheckoutState, Payments } from "../ports/index.ts";

/**
 * The kinds of provider event the cases ask for, by what they report: the money arrived
 * (`paid`), the respondent finished with a delayed method whose money has not arrived yet
 * (`processing`), the delayed payment arrived (`async_paid`) or failed (`async_failed`), the
 * checkout expired unpaid (`expired`), or an event that concerns no checkout (`unrelated`).
 */
export type PaymentEventKind =
  | "paid"
  | "processing"
  | "async_paid"
  | "async_failed"
  | "expired"
  | "unrelated";

/** How to sign a body: rightly by default, or wrongly in one way. */
export interface Signing {
  /** Signs as if `ageSeconds` ago (a stale signature for a large age). @default 0 */
  ageSeconds?: number;
  /** Signs with another secret than the adapter's (a forged signature). @default false */
  forged?: boolean;
}

/** What an adapter hands to `paymentsConformanceCases` (or `runPaymentsConformance`). */
export interface PaymentsConformanceOptions {
  /** Name shown in the test report. */
  name: string;
  /** Makes the adapter under test; called once per case. */
  create(): Promise<Payments> | Payments;
  /**
   * The provider's event of `kind` about `checkout` (a checkout the case opened), as the
   * provider would post it: the exact body, not yet signed. Each call makes a new event id.
   */
  event(kind: PaymentEventKind, checkout: CheckoutState): Uint8Array;
  /** The headers the provider would post `body` with, its signature among them. */
  sign(body: Uint8Array, signing?: Signing): Promise<Headers> | Headers;
  /** A checkout id of the provider's form that it does not know. */
  unknownCheckout(): string;
  /** Called after each case with the adapter it made. */
  cleanup?(payments: Payments): Promise<void>;
}

/** The adapter one case uses and the options that made it. */
export interface PaymentsFixture {
  payments: Payments;
  options: PaymentsConformanceOptions;
}

/**
 * The Payments port: takes a respondent's money through a provider's hosted checkout
 * (Stripe Checkout first; Mollie, Adyen or PayPal could follow). The service decides what is
 * owed, stores the submission `pending` and settles it from the provider's signed events
 * (docs/design.md §26); the provider only starts checkouts, reads them and vouches for events.
 *
 * Every call makes at most one attempt and settles in bounded time (the adapter's own
 * timeouts); the service decides whether to try again.
 */
export interface Payments {
  /**
   * The provider's name, lowercase letters only (`stripe`): its events arrive at
   * `POST /api/payments/<provider>/events`, and it is recorded on the submission.
   */
  readonly provider: string;

  /**
   * Opens a checkout for one payment and answers where to send the respondent.
   *
   * The same `request.idempotencyKey` must give the same checkout when called again (an
   * answer lost to a crash or a timeout is asked for again with the same key), so that one
   * submission never opens two checkouts for one attempt.
   *
   * @throws {PaymentRefusedError} when the provider refuses the request for good (an
   *   unsupported currency, an amount under its minimum): the respondent cannot pay.
   * @throws any other error for a failure that may pass (the provider down, a timeout).
   */
  startCheckout(request: CheckoutRequest): Promise<Checkout>;

  /**
   * The checkout's state as the provider knows it now. The service asks when an event may
   * have been lost (a checkout still `pending` well after it expired) and before opening a
   * new checkout for the same submission.
   * @throws {PaymentRefusedError} when the provider knows no such checkout.
   */
  readCheckout(checkout: string): Promise<CheckoutState>;

  /**
   * Ends a checkout that is still open, so it can no longer be paid (the respondent asked
   * for a new one). Answers its state afterwards: `paid` when it was paid meanwhile, and
   * the same again for a checkout already ended.
   * @throws {PaymentRefusedError} when the provider knows no such checkout.
   */
  expireCheckout(checkout: string): Promise<CheckoutState>;

  /**
   * Verifies an event the provider posted, over the exact bytes received and their headers
   * (the signature is the only credential), and reads it.
   * @returns the checkout state the event reports, or `null` for an event of a kind that
   *   does not concern checkouts (it is acknowledged and ignored).
   * @throws {PaymentEventRejectedError} when the signature is missing, wrong or stale, or
   *   the body is not an event: the service answers 400 and changes nothing.
   */
  parseEvent(body: Uint8Array, headers: Headers): Promise<PaymentEvent | null>;
}

/** One payment to collect. */
export interface CheckoutRequest {
  /** A positive whole number of the currency's minor units (cents for EUR). */
  amount: number;
  /** ISO 4217, upper case (`EUR`). */
  currency: string;
  /** What the respondent sees they pay for, plain text. */
  description: string;
  /**
   * The service's reference to the submission: its form's id and its own, as
   * `<form id>.<submission id>` (at most 73 characters), so that an event finds the
   * submission with one point read. The provider keeps it with the checkout
   * (Stripe: `client_reference_id` and `metadata`) and gives it back in every state and
   * event, so an event finds its submission.
   */
  reference: string;
  /** The same for every retry of one attempt; a new attempt has a new key. */
  idempotencyKey: string;
  /** Where the provider sends the respondent after paying. */
  successUrl: string;
  /** Where the provider sends the respondent who leaves the checkout unpaid. */
  cancelUrl: string;
  /** When the checkout stops taking payment (the provider may allow only a window). */
  expiresAt: Date;
  /** The respondent's e-mail address, when the form has one, to fill in the checkout. */
  email?: string;
}

/** A checkout opened. */
export interface Checkout {
  /** The provider's id for the checkout, kept on the submission. */
  checkout: string;
  /** The provider's page where the respondent pays. */
  url: string;
  expiresAt: Date;
}

/**
 * Where a checkout stands: `pending` until the money arrives (`paid`), the checkout
 * expires unpaid (`expired`), or a delayed payment method reports failure (`failed`).
 * `paid`, `expired` and `failed` are final.
 */
export type PaymentStatus = "pending" | "paid" | "expired" | "failed";

export interface CheckoutState {
  checkout: string;
  /** {@link CheckoutRequest.reference} as given when it was opened. */
  reference: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
}

/** A verified event: the state it reports for one checkout. */
export interface PaymentEvent extends CheckoutState {
  /** The provider's id for the event: the same when the provider sends it again. */
  id: string;
}

/** The provider refuses a request for good; trying again cannot help. */
export class PaymentRefusedError extends Error {
  override name = "PaymentRefusedError";
}

/** An event that is not the provider's: a bad signature or a body that is not an event. */
export class PaymentEventRejectedError extends Error {
  override name = "PaymentEventRejectedError";
}

/**
 * A payment provider's events (docs/design.md §26): `POST /api/payments/{provider}/events`,
 * with no credentials but the provider's signature over the exact bytes received.
 */
import { NotFoundError, ValidationError } from "../../kernel/errors.ts";
import { PaymentEventRejectedError } from "../../ports/payments.ts";
import type { Context } from "../context.ts";
import { settlePayment } from "./payment-settle.ts";

/**
 * Verifies an event of `provider` and settles the submission it names (payment-settle.ts):
 * an event of a kind that concerns no checkout, or naming no submission of ours, is
 * acknowledged and changes nothing; a repeat changes nothing twice.
 * @throws {NotFoundError} 404 unless `provider` is the configured port's.
 * @throws {ValidationError} 400 when the signature or the body is not the provider's;
 *   nothing is changed.
 */
export async function receivePaymentEvent(
  ctx: Context,
  provider: string,
  body: Uint8Array,
  headers: Headers,
): Promise<{ received: true }> {
  const payments = ctx.payments;
  if (!payments || payments.provider !== provider) {
    throw new NotFoundError("No such payment provider");
  }
  let event: Awaited<ReturnType<typeof payments.parseEvent>>;
  try {
    event = await payments.parseEvent(body, headers);
  } catch (error) {
    if (!(error instanceof PaymentEventRejectedError)) throw error;
    throw new ValidationError("The event is not the payment provider's; nothing was changed", [
      { path: "", message: error.message },
    ]);
  }
  if (event) await settlePayment(ctx, event);
  return { received: true };
}

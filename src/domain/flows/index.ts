/**
 * The operations that span concepts, on the floor above them all: S2 posts a submission
 * (the form, its counter and quotas, file claims, the engine's rules, webhook deliveries and
 * the form's actions in one `Store.batch`), S6 edits and S7 deletes one (as an erasure by
 * respondent deletes each of its submissions, and the retention sweep old ones; the access
 * export reads them), F3 and the admin API finish form deletions, and F5 renders a form
 * with its settings. Each calls the concepts below it; no concept calls a flow.
 */

export type { Answered } from "../records/idempotency-keys.ts";
export { sweepIdempotencyKeys } from "../records/idempotency-sweep.ts";
export { deleteForm, finishFormDeletions } from "./form-deletion.ts";
export {
  type RenderedForm,
  refusedPageSettings,
  renderForm,
  renderFormPage,
} from "./form-rendering.ts";
export { createSubmissionOnce, updateSubmissionOnce } from "./idempotent-posts.ts";
export { receivePaymentEvent } from "./payment-events.ts";
export { readPaymentStatus, retryPayment } from "./payment-return.ts";
export { sweepPayments } from "./payment-sweep.ts";
export { eraseRespondent, erasureLeaseMs, resumeErasures } from "./respondent-erasure.ts";
export { exportRespondent } from "./respondent-export.ts";
export { sweepRetention } from "./retention-sweep.ts";
export { deleteSubmission } from "./submission-delete.ts";
export { createSubmission } from "./submission-post.ts";
export { updateSubmission } from "./submission-update.ts";

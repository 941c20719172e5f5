/**
 * Settles a submission's payment from what the provider reports of one checkout
 * (docs/design.md §26): an event, the sweep's reading, or S2's own failure to open one.
 */
import type { CheckoutState, PaymentStatus } from "../../ports/payments.ts";
import type { BatchOp, Stored } from "../../ports/store.ts";
import { partnerIdOf } from "../accounts/index.ts";
import type { Context } from "../context.ts";
import { formCounter, formSnapshot, readFormCounter, versionOf } from "../forms/form-snapshots.ts";
import { batchInTurns } from "../quotas/count-changes.ts";
import { counterOp, counterToWrite } from "../quotas/counters.ts";
import { quotaCounter } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { compileRules } from "../settings/form-rules.ts";
import { inventoryHeld, inventoryTaken } from "../settings/inventory.ts";
import { type PlannedActions, planPostSubmissionActions } from "../webhooks/submission-actions.ts";
import { submissionCreatedOps } from "../webhooks/webhook-outbox.ts";
import { referencedSubmission } from "./payment-due.ts";

/** What a report does to a submission's payment. */
type Change =
  | { kind: "paid" }
  | { kind: "also_paid" }
  | { kind: "released"; status: Extract<PaymentStatus, "expired" | "failed"> };

/**
 * What `state` changes of `record`, or `null` for nothing (a repeat, or news older than
 * what the record knows). `paid` is final and wins: money taken settles a submission that
 * was pending, and one whose payment had expired or failed (its counts are taken again);
 * a second checkout paid for a submission already paid is kept for the owner to refund.
 * `expired` and `failed` settle a pending submission only from its own checkout (or from
 * any while it has none recorded: S2 stopped before writing it).
 */
function changeOf(record: SubmissionRecord, state: CheckoutState): Change | null {
  const current = record.payment_status;
  const mine = record.payment_reference ?? "";
  if (current === undefined || state.status === "pending") return null;
  if (state.status === "paid") {
    if (current !== "paid") return { kind: "paid" };
    const known = mine === state.checkout || record.payment_also_paid?.includes(state.checkout);
    return known ? null : { kind: "also_paid" };
  }
  if (current !== "pending" || (mine !== "" && mine !== state.checkout)) return null;
  return { kind: "released", status: state.status };
}

/** What one settle did. */
export interface Settled {
  /** The submission's payment status now; `null` when no submission of ours is named. */
  status: PaymentStatus | null;
  /** Whether this call changed it. */
  changed: boolean;
}

/**
 * Settles the submission `state.reference` names from `state`, in ONE `Store.batch` on the
 * etags read (docs/design.md §12): the submission's new status with, for `paid`, the
 * deliveries and actions its payment releases (queued as S2 queues them for a free form),
 * or, for `expired` and `failed`, the slot, inventory and monthly quota it took given back
 * exactly. A repeat or a report out of order changes nothing, so a provider may send an
 * event any number of times. The actions' first attempts follow the batch, as after S2.
 */
export async function settlePayment(ctx: Context, state: CheckoutState): Promise<Settled> {
  const named = referencedSubmission(state.reference);
  if (!named) return { status: null, changed: false };
  const { formId, submissionId } = named;
  let status: PaymentStatus | null = null;
  let change: Change | null = null;
  let actions: PlannedActions = { ops: [] };
  let nudge = false;
  let replaced: string | undefined;
  const written = await batchInTurns(ctx, formId, async () => {
    const stored = await ctx.store.get<SubmissionRecord>(
      collections.submissions,
      formId,
      submissionId,
    );
    status = stored?.record.payment_status ?? null;
    change = stored ? changeOf(stored.record, state) : null;
    if (!stored || !change) return null;
    const ops = await changeOps(ctx, stored, state, change);
    // The form is gone: what is left of it is unreachable and counts for nothing.
    if (!ops) return null;
    actions = ops.actions;
    nudge = ops.nudge;
    replaced = ops.replaced;
    status = ops.next.payment_status ?? null;
    return ops.batch;
  });
  if (!written) return { status, changed: false };
  if (nudge) ctx.nudgeWebhooks();
  if (actions.attempt) await actions.attempt();
  // The checkout it replaced can no longer be paid: one payment is enough.
  if (replaced) await ctx.payments?.expireCheckout(replaced).catch(() => undefined);
  return { status, changed: true };
}

/** The batch of one change, from the form's counter and snapshot read now. */
async function changeOps(
  ctx: Context,
  stored: Stored<SubmissionRecord>,
  state: CheckoutState,
  change: Change,
) {
  const record = stored.record;
  const formId = record.form_id;
  const counter = await readFormCounter(ctx, formId);
  const snapshot = await formSnapshot(ctx, formId, versionOf(counter));
  if (!snapshot) return null;
  const { form } = snapshot;
  const next: SubmissionRecord = { ...record, modified_date_utc: ctx.now().toISOString() };
  const counts: Record<string, number> = { ...counter?.record.counts };
  const batch: BatchOp[] = [];
  let actions: PlannedActions = { ops: [] };
  let nudge = false;
  let replaced: string | undefined;
  if (change.kind === "also_paid") {
    next.payment_also_paid = [...(record.payment_also_paid ?? []), state.checkout];
  } else if (change.kind === "paid") {
    const mine = record.payment_reference ?? "";
    if (record.payment_status === "pending" && mine !== "" && mine !== state.checkout)
      replaced = mine;
    next.payment_status = "paid";
    next.payment_reference = state.checkout;
    if (record.payment_released) {
      // Paid after all: it holds its slot, inventory and quota again, past any limit, as
      // the money is taken (docs/design.md §26).
      delete next.payment_released;
      next.inventory_taken = inventoryTaken(compileRules(form), record.form_fields);
      for (const name of ["submissions", ...next.inventory_taken])
        counts[name] = (counts[name] ?? 0) + 1;
      batch.push(...(await monthlyOps(ctx, form.owner_user_id, record, 1)));
    }
    const created = submissionCreatedOps(ctx, next, snapshot.webhooks);
    nudge = created.length > 0;
    actions = planPostSubmissionActions(ctx, form, next);
    batch.push(...created, ...actions.ops);
  } else {
    next.payment_status = change.status;
    next.payment_released = true;
    for (const name of ["submissions", ...inventoryHeld(compileRules(form), record)])
      counts[name] = Math.max(0, (counts[name] ?? 0) - 1);
    next.inventory_taken = [];
    batch.push(...(await monthlyOps(ctx, form.owner_user_id, record, -1)));
  }
  batch.unshift(
    {
      op: "replace",
      collection: collections.submissions,
      partition: formId,
      record: next,
      ifMatch: stored.etag,
      previous: record,
    },
    counterOp(formCounter(formId), counter, counts),
  );
  return { batch, next, actions, nudge, replaced };
}

/**
 * The op that moves the owner's monthly submission quota by `delta` for the month the
 * submission was counted in (a partner customer's; none for a local account).
 */
async function monthlyOps(
  ctx: Context,
  owner: string,
  record: SubmissionRecord,
  delta: number,
): Promise<BatchOp[]> {
  if (!partnerIdOf(owner)) return [];
  const month = record.created_date_utc.slice(0, 7);
  const key = quotaCounter(owner, "monthly_form_submissions", month);
  const stored = await counterToWrite(ctx, key);
  const used = Math.max(0, (stored.record.counts.used ?? 0) + delta);
  return [counterOp(key, stored, { ...stored.record.counts, used })];
}

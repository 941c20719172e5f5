import { newId } from "../../kernel/ids.ts";
import type { BatchOp, Stored } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import { uploadersGiveBack } from "../attachments/address-uploads.ts";
import { type Claimable, claimOps, readClaimable } from "../attachments/attachment-claims.ts";
import { settledUploadsOf } from "../attachments/settled-uploads.ts";
import { heldUploads, waitingWithout } from "../attachments/waiting-uploads.ts";
import type { Context } from "../context.ts";
import { formNotFound } from "../forms/form-access.ts";
import {
  type FormSnapshot,
  formCounter,
  formSnapshot,
  formSnapshotsOf,
  readFormCounter,
  versionOf,
} from "../forms/form-snapshots.ts";
import { batchInTurns, countOps } from "../quotas/count-changes.ts";
import { type CounterRecord, counterOp } from "../quotas/counters.ts";
import { quotaOp } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import type { Device } from "../records/device.ts";
import {
  finishKey,
  type IdempotencyRecord,
  type IdempotentRequest,
  keyOps,
  runningMarginMs,
} from "../records/idempotency-keys.ts";
import type {
  SubmissionInput,
  SubmissionRecord,
  SubmittedField,
} from "../records/submission-record.ts";
import { type BotMarks, screenPost } from "../settings/bot-protection.ts";
import { thanksPageOf } from "../settings/sections/thanks-page.ts";
import { respondentIndexOps } from "../submissions/respondent-index.ts";
import {
  type ActionFlags,
  noFailedActions,
  type PlannedActions,
  planPostSubmissionActions,
} from "../webhooks/submission-actions.ts";
import { submissionCreatedOps } from "../webhooks/webhook-outbox.ts";
import { openCheckout, returnUrlOf } from "./payment-checkout.ts";
import { type PaymentDue, paymentDueOf, paymentNoteOp, pendingPayment } from "./payment-due.ts";
import { type CheckedPost, checkPost, countsOf, submissionOf } from "./post-checks.ts";

/**
 * What one attempt of S2 writes (`createSubmission` below): the post checked against the form's
 * snapshot (checked again only when the snapshot changed, or its claims read again after a
 * failed attempt), the counts it raises, and the batch of the counters, the claims, the
 * submission, its deliveries and its actions.
 */

/** One S2 across its attempts. */
export interface Post {
  caller: Caller | null;
  formId: string;
  id: string;
  fields: SubmittedField[];
  device: Device;
  draft: boolean;
  /** What it carries for the form's bot protections (bot-protection.ts). */
  marks: BotMarks;
  /** The snapshot of the attempt that found it a bot's: answered as if stored, not stored. */
  dropped?: FormSnapshot;
  /** The post as last checked, against the snapshot of the attempt that checked it. */
  checked?: CheckedPost;
  /** What the attempt whose batch was handed over wrote. */
  written?: WrittenPost;
  /** Its `Idempotency-Key`, whose record goes in the batch (idempotency-keys.ts). */
  idempotency?: IdempotentRequest;
  /**
   * The form's hosted page, where a checkout sends the respondent back (docs/design.md §26):
   * built only for a paying form, not on every post (hot path).
   */
  pageUrl?: () => string;
}

/** What the written attempt leaves for after its batch. */
export interface WrittenPost {
  snapshot: FormSnapshot;
  /** Whether the form had no counter yet: this post made it. */
  fresh: boolean;
  actions: PlannedActions;
  /** Where the batch's key record is, when the post keeps it `running` past the batch. */
  runningKeyAt?: number;
  /** The submission as written. */
  submission: SubmissionRecord;
  /** What it pays, when it is stored `pending` for a checkout (payment-due.ts). */
  due: PaymentDue | null;
}

/** A new S2 of `input` to `formId`, with its submission id. */
export function newPost(
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
  marks: BotMarks = {},
): Post {
  const draft = input.is_draft_submission ?? false;
  return { caller, formId, id: newId(), fields: input.form_fields, device, draft, marks };
}

/**
 * The batch of one attempt of `post`, from fresh reads of the form's counter; `null` for a
 * post the first attempt screened out as a bot's (bot-protection.ts), before any check or
 * write of its own.
 */
export async function postOps(
  ctx: Context,
  post: Post,
  attempt: number,
): Promise<BatchOp[] | null> {
  const { formId, id, draft } = post;
  const counter = await readFormCounter(ctx, formId);
  const snapshot = await formSnapshot(ctx, formId, versionOf(counter));
  if (!snapshot) throw formNotFound();
  if (attempt === 1 && (await screenPost(ctx, snapshot.form, post.marks)) === "drop") {
    post.dropped = snapshot;
    return null;
  }
  const checked = await checkedFor(ctx, post, snapshot, counter, attempt);
  const counts = countsOf(counter, checked);
  const monthly = await quotaOp(ctx, snapshot.form.owner_user_id, "monthly_form_submissions");
  // The claimed files' bytes leave their uploaders' counts too (address-uploads.ts).
  const uploaders = await countOps(ctx, uploadersGiveBack(checked.claims.map(claimedFile)));
  const submission = submissionOf(ctx, snapshot, id, checked, post.caller, post.device, draft);
  // A paying post is stored pending; its payment releases its deliveries and actions
  // (payment-settle.ts).
  const due = paymentDueOf(ctx, snapshot.form, checked.values, draft);
  if (due) Object.assign(submission, pendingPayment(ctx, due));
  const actions = due ? { ops: [] } : planPostSubmissionActions(ctx, snapshot.form, submission);
  post.written = { snapshot, fresh: !counter, actions, submission, due };
  const ops: BatchOp[] = [
    // The files claimed leave the uploads it lists as waiting (waiting-uploads.ts).
    counterOp(formCounter(formId), counter, counts, waitingWithout(counter, checked.claims)),
    ...uploaders,
    ...(monthly ? [monthly] : []),
    // The claims in the batch, before the submission and its deliveries: a claim that
    // fails (a file taken meanwhile) undoes only the counters, on Cosmos DB's op-by-op
    // batch; one a crash leaves without its submission is the sweep's to remove.
    ...claimOps(id, checked.claims, submission.created_date_utc),
    { op: "create", collection: collections.submissions, partition: formId, record: submission },
    // In the form's partition: on Cosmos DB one more op of the same transactional batch.
    ...respondentIndexOps(formId, id, [], submission.respondent_keys),
    ...(draft || due ? [] : submissionCreatedOps(ctx, submission, snapshot.webhooks)),
    ...actions.ops,
    ...(due ? [paymentNoteOp(submission)] : []),
  ];
  if (post.idempotency) {
    // While the actions' first attempts run, or the checkout opens, a retry is told to wait
    // (409): their flags or the checkout complete the answer the key keeps. Should the post
    // die meanwhile, the key answers the hosted page, which offers a new checkout.
    const running = actions.attempt || due ? ctx.actions.attemptMs + runningMarginMs : undefined;
    if (running !== undefined) post.written.runningKeyAt = ops.length;
    const answer = postedAnswer(
      snapshot,
      id,
      noFailedActions,
      due
        ? checkoutThanks(returnUrlOf(ctx, post.pageUrl?.() ?? "", formId, id, "cancel"))
        : undefined,
    );
    ops.push(...keyOps(ctx, post.idempotency, answer, running));
  }
  return ops;
}

/** The attachment a claim is of. */
function claimedFile({ record }: Claimable) {
  return record;
}

/**
 * The post checked against `snapshot`: checked afresh when the snapshot changed; else, after
 * a failed attempt that may have failed on a claim, with its files read again (a 400 when
 * another submission took one). Files this instance settled, or that the form's `counter`
 * lists as waiting, are claimed unread on the first attempt only (settled-uploads.ts,
 * waiting-uploads.ts).
 */
async function checkedFor(
  ctx: Context,
  post: Post,
  snapshot: FormSnapshot,
  counter: Stored<CounterRecord> | null,
  attempt: number,
): Promise<CheckedPost> {
  const held = attempt === 1 ? heldUploads(settledUploadsOf(ctx), counter) : undefined;
  const { caller, id, fields, draft } = post;
  const checked = post.checked;
  if (checked?.snapshot !== snapshot) {
    post.checked = await checkPost(ctx, caller, id, snapshot, fields, draft, held);
    return post.checked;
  }
  if (attempt > 1 && checked.claims.length > 0) {
    for (const { record } of checked.claims) settledUploadsOf(ctx).delete(record.id);
    const definition = snapshot.form.form_definition;
    checked.claims = await readClaimable(ctx, post.formId, id, definition, checked.values);
  }
  return checked;
}

/**
 * S2: stores a submission to a form open to the caller. The form's counter (its submission
 * count and version, form-snapshots.ts) and, for a partner customer's form, the owner's
 * monthly quota counter are read; then the raised counters, the submission, its webhook
 * deliveries and its actions (submission-actions.ts) are written in ONE `Store.batch`,
 * conditional on the counters' etags, and made again from fresh reads when one moved
 * (`batchAgain`). So `max_total_submissions` and the quota hold under concurrent posts, a
 * form changed meanwhile makes the post start over with the new form, and a crash leaves
 * the counts equal to the records (all or nothing; see the Store port for Cosmos DB across
 * partitions). Files are read with the form's checks (or, on the first attempt, taken as
 * this instance settled them: settled-uploads.ts) and claimed in the same batch, each on
 * the etag read, so no claim outlives a failed or cut-short S2; the batch's counter write
 * also takes their bytes off the form's cap on unclaimed uploads (unclaimed-uploads.ts).
 */
export async function createSubmission(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
  marks: BotMarks = {},
  idempotency?: IdempotentRequest,
  pageUrl?: () => string,
) {
  const post = newPost(caller, formId, input, device, marks);
  post.idempotency = idempotency;
  post.pageUrl = pageUrl;
  // Posts to one form in this process take turns on its counter (counter-turns.ts):
  // otherwise concurrent ones all read one etag and all but one retry.
  const build = (attempt: number) => postOps(ctx, post, attempt);
  const results = await batchInTurns(ctx, formId, build, idempotency !== undefined);
  if (post.dropped) return postedAnswer(post.dropped, post.id, noFailedActions);
  const { snapshot, fresh, actions, runningKeyAt, submission, due } = post.written as WrittenPost;
  for (const { record } of post.checked?.claims ?? []) settledUploadsOf(ctx).delete(record.id);
  // The counter this S2 made holds version 0: no change came between (form-snapshots.ts).
  if (fresh) formSnapshotsOf(ctx).set(formId, 0, snapshot);
  if (!post.draft && snapshot.webhooks.length > 0) ctx.nudgeWebhooks();
  const flags = actions.attempt ? await actions.attempt() : noFailedActions;
  const answer = due
    ? postedAnswer(
        snapshot,
        post.id,
        flags,
        checkoutThanks((await openCheckout(ctx, submission, due, pageUrl?.() ?? "")).url),
      )
    : postedAnswer(snapshot, post.id, flags);
  const key = runningKeyAt === undefined ? undefined : results?.[runningKeyAt];
  if (idempotency && key)
    await finishKey(ctx, idempotency, key as Stored<IdempotencyRecord>, answer);
  return answer;
}

/**
 * S2's thanks behaviour on a paying form: a redirect to the checkout, in the interface's
 * shape (docs/design.md §26).
 */
function checkoutThanks(url: string): Thanks {
  return {
    thanks_behaviour: "url_redirect",
    // A provider's checkout page refuses to be framed: an embedded form leaves for it.
    thanks_behaviour_redirect_parent_page: true,
    thanks_behaviour_redirect_url: url,
    thanks_behaviour_redirect_url_params: [],
  };
}

/** The thanks behaviour S2 answers: the form's own, or a checkout's. */
type Thanks = ReturnType<typeof thanksPageOf>;

/** S2's answer: a post screened out as a bot's gets the same, with its unused id. */
function postedAnswer(
  snapshot: FormSnapshot,
  id: string,
  flags: Readonly<ActionFlags>,
  thanks: Thanks = thanksPageOf(snapshot.form),
) {
  return {
    id,
    message: "Submission posted successfully",
    ...thanks,
    cloud_database_post_expected_but_failed: flags.cloud_database_post_expected_but_failed,
    email_address_post_expected_but_failed: flags.email_address_post_expected_but_failed,
    actionSuccessful: true,
  };
}

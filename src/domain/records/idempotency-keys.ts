import { createHash } from "node:crypto";
import { ServiceError, UnavailableError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import type { BatchOp, Store, StoreConflictError, Stored } from "../../ports/store.ts";
import { collections } from "./collections.ts";

/**
 * Requests sent with an `Idempotency-Key` (S2, S3, S6; docs/design.md §6): the first answer
 * is kept with the request's fingerprint, in the form's partition, and a request with the
 * same key and fingerprint within {@link idempotencyWindowMs} answers it again and writes
 * nothing. The key record is written in the request's own `Store.batch` (all or nothing
 * with what it answers for), so a first request costs no store call more; a request whose
 * key is taken fails that batch on the record's create and reads it once.
 */

/**
 * What key records need of the context (`Context` satisfies it; named here, since the
 * context's file stands beside this folder and imports it).
 */
export interface KeyContext {
  store: Store;
  now(): Date;
  keepRunning(task: Promise<unknown>): void;
}

/** How long past its last planned work a `running` request blocks its key, should it die. */
export const runningMarginMs = 30_000;

/** How long a key's first answer is kept and replayed (Stripe's 24 hours). */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** The stored first answer of a key. */
export interface IdempotencyRecord {
  /** A hash of the caller's scope and the key (see {@link idempotentRequest}). */
  id: string;
  /** SHA-256 of the operation, its target and its body. */
  fingerprint: string;
  /** `running` while the first request still works after its write (S2's actions). */
  state: "running" | "done";
  /** When a `running` record stops blocking: a request that died then frees its key. */
  running_until?: string;
  answer: unknown;
  /** ISO time of the first request: the key expires {@link idempotencyWindowMs} later. */
  created_at: string;
}

/** One request with an `Idempotency-Key`, across its attempts. */
export interface IdempotentRequest {
  formId: string;
  /** The key record's id. */
  id: string;
  fingerprint: string;
  /** A record of the key found expired: the request writes over it, on its etag. */
  expired?: Stored<IdempotencyRecord>;
  /** The hour this request notes the form under for the sweep, when it writes a note. */
  noting?: string;
}

/**
 * A request to `formId` with `key`, by the caller `userId` (`null`: anonymous), of the
 * operation and body `what`. Keys are scoped per form and caller; anonymous callers share
 * one scope per form, so the key alone names the request there (as a Stripe key does per
 * account): clients should send random keys (a UUID v4).
 */
export function idempotentRequest(
  formId: string,
  userId: string | null,
  key: string,
  what: string | null,
): IdempotentRequest {
  const scope = userId === null ? "anonymous" : `user:${userId}`;
  const fingerprint = what === null ? "" : fingerprintOf(what);
  return { formId, id: fingerprintOf(`${scope}\n${key}`), fingerprint };
}

/** SHA-256 of `what`, in hex: a request's fingerprint (`what` null: known only later, S3). */
export function fingerprintOf(what: string): string {
  return createHash("sha256").update(what).digest("hex");
}

/**
 * The batch ops that keep `answer` as the key's first answer: the key record (created, or
 * written over an expired one on its etag) and, once an hour per form and instance, a note
 * for the sweep (idempotency-sweep.ts). With `runningMs`, the record blocks the key as
 * still running for that long, until {@link finishKey} replaces it.
 */
export function keyOps(
  ctx: KeyContext,
  request: IdempotentRequest,
  answer: unknown,
  runningMs?: number,
): BatchOp[] {
  const now = ctx.now();
  const record: IdempotencyRecord = {
    id: request.id,
    fingerprint: request.fingerprint,
    state: runningMs === undefined ? "done" : "running",
    ...(runningMs === undefined
      ? {}
      : { running_until: new Date(now.getTime() + runningMs).toISOString() }),
    answer,
    created_at: now.toISOString(),
  };
  const place = { collection: collections.idempotencyKeys, partition: request.formId };
  const { expired } = request;
  const ops: BatchOp[] = [
    expired
      ? { op: "replace", ...place, record, ifMatch: expired.etag, previous: expired.record }
      : { op: "create", ...place, record },
  ];
  const bucket = now.toISOString().slice(0, 13);
  request.noting = undefined;
  if (!notedForms(ctx, bucket).has(request.formId)) {
    request.noting = bucket;
    // A fresh id: another post may note the same form meanwhile (Store.batch's creates).
    const note = { id: newId(), form_id: request.formId };
    ops.push({
      op: "create",
      collection: collections.idempotencyNotes,
      partition: bucket,
      record: note,
    });
  }
  return ops;
}

/** Replaces a `running` key record (`stored`, as written) with the final `answer`. */
export async function finishKey(
  ctx: KeyContext,
  request: IdempotentRequest,
  stored: Stored<IdempotencyRecord>,
  answer: unknown,
): Promise<void> {
  const { running_until: _, ...record } = stored.record;
  const done: IdempotencyRecord = { ...record, state: "done", answer };
  try {
    await ctx.store.replace(collections.idempotencyKeys, request.formId, done, {
      ifMatch: stored.etag,
    });
  } catch (error) {
    // The request is answered all the same; the record stops blocking at `running_until`.
    ctx.keepRunning(Promise.reject(error));
  }
}

/** A batch's create found its id taken (a key record): fresh reads cannot free it. */
export class IdTakenError extends Error {
  constructor(cause: StoreConflictError) {
    super("a record created by the batch exists already", { cause });
    this.name = "IdTakenError";
  }
}

/** An answer, and whether it is a replay of the key's first. */
export interface Answered<T> {
  answer: T;
  replayed: boolean;
}

/**
 * Runs `run` (which writes {@link keyOps} in its batch, refusing a taken id with
 * {@link IdTakenError}) for `request`, or answers the key's first answer again. A request
 * that fails on purpose (a `ServiceError`: a check, a closed form, a claimed file) or on its
 * key's record reads the key once: its first answer is replayed when the fingerprint
 * matches. Only written answers are kept: a request that failed leaves its key free. With
 * `rerun` false (S3, whose body is read once), a key taken by an expired record is not run
 * again over it.
 * @throws {ServiceError} 409 `idempotency_conflict` for a key used with another request, or
 *   whose first request still runs
 */
export async function answerOnce<T>(
  ctx: KeyContext,
  request: IdempotentRequest | undefined,
  run: () => Promise<T>,
  rerun = true,
): Promise<Answered<T>> {
  if (!request) return { answer: await run(), replayed: false };
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await run();
      if (request.noting) notedForms(ctx, request.noting).add(request.formId);
      return { answer, replayed: false };
    } catch (error) {
      // No fingerprint yet: S3 failed before its file was read whole.
      const answerable = error instanceof IdTakenError || isDeliberate(error);
      if (!answerable || request.fingerprint === "") throw error;
      const earlier = await earlierAnswer(ctx, request);
      if (earlier) return { answer: earlier.answer as T, replayed: true };
      // The record that took the id has expired (or gone) since: run again, over it.
      if (error instanceof IdTakenError && rerun && attempt < 3) continue;
      throw error instanceof IdTakenError ? error.cause : error;
    }
  }
}

function isDeliberate(error: unknown): boolean {
  return error instanceof ServiceError && !(error instanceof UnavailableError);
}

/**
 * The key's first answer, or `null` when the key is free (never used, or expired: then
 * `request.expired` holds the record to write over).
 * @throws {ServiceError} 409 `idempotency_conflict` as {@link answerOnce} says
 */
export async function earlierAnswer(
  ctx: KeyContext,
  request: IdempotentRequest,
): Promise<IdempotencyRecord | null> {
  const record = await readKey(ctx, request);
  return record && replayOf(ctx, request, record);
}

/**
 * The key's record, or `null` when the key is free (never used, or expired: then
 * `request.expired` holds the record to write over).
 */
export async function readKey(
  ctx: KeyContext,
  request: IdempotentRequest,
): Promise<IdempotencyRecord | null> {
  const stored = await ctx.store.get<IdempotencyRecord>(
    collections.idempotencyKeys,
    request.formId,
    request.id,
  );
  if (!stored) return null;
  if (Date.parse(stored.record.created_at) + idempotencyWindowMs <= ctx.now().getTime()) {
    request.expired = stored;
    return null;
  }
  return stored.record;
}

/**
 * `record`, the key's, to answer again to `request`.
 * @throws {ServiceError} 409 `idempotency_conflict` when the fingerprints differ, or while
 *   the first request still runs
 */
export function replayOf(
  ctx: KeyContext,
  request: IdempotentRequest,
  record: IdempotencyRecord,
): IdempotencyRecord {
  if (record.fingerprint !== request.fingerprint) {
    throw new ServiceError(
      "idempotency_conflict",
      "This Idempotency-Key was already used with another request",
    );
  }
  const now = ctx.now().getTime();
  if (record.state === "running" && Date.parse(record.running_until ?? "") > now) {
    throw new ServiceError(
      "idempotency_conflict",
      "The first request with this Idempotency-Key is still being processed; retry later",
    );
  }
  return record;
}

/** The forms this instance has noted for the sweep in the hour `bucket` (only that hour). */
function notedForms(ctx: KeyContext, bucket: string): Set<string> {
  let noted = notedByContext.get(ctx);
  if (noted?.bucket !== bucket) {
    noted = { bucket, forms: new Set() };
    notedByContext.set(ctx, noted);
  }
  // Bounded: past it, posts note their form again, which only costs the sweep a query.
  if (noted.forms.size >= 10_000) noted.forms.clear();
  return noted.forms;
}

const notedByContext = new WeakMap<KeyContext, { bucket: string; forms: Set<string> }>();

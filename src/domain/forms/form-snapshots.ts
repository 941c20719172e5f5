/**
 * The forms S2 posts to and F5 renders, held in memory by each service instance with their
 * webhooks, and checked against the form's version on every use (hot path).
 *
 * The version is a count, `form_version`, in the form's counter record (`form_counters`),
 * which S2 reads anyway for the form's submission count. Every write to a form or to its
 * webhooks adds one to it ({@link formChanged}): after the write, or before it for a delete.
 * So an instance that reads the counter knows whether the snapshot it holds is current,
 * whichever instance made the change; and since S2 then writes the counter conditionally on
 * the etag it read, a change made between S2's read and its write fails that write, and S2
 * starts over with the new form. A snapshot is used only under the version it was read
 * with: a counter that is missing (a form never posted to, or being deleted) is never
 * matched, and the form is read from the store.
 *
 * What a stale snapshot could let through, and why it does not: a submission to a form just
 * disabled, closed, given `requires_login` or deleted, or without a delivery to a webhook
 * just added. Each of those writes moves the version, which fails the conditional counter
 * write of any S2 that still used the old snapshot. What remains is the window a read of
 * the form always had: an S2 whose counter write lands between a form write and its version
 * change counts as made just before the change. A writer that dies in that window leaves
 * snapshots of the old form in use until the next change or a restart of the readers;
 * writers of a version before this one never move it (upgrade every instance together).
 * A counter write that lands after F3 deleted the counter (an S3 racing the delete) starts
 * the version at 0 again; a count taken down on a missing counter never recreates it.
 *
 * F5 uses the same snapshots. They also hold which of the datalists the form names its
 * owner holds: that changes only when a datalist is deleted, which deletes its entries too,
 * and the entries are read by every F5 and S2.
 */

import type { Stored } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { ownsDatalist } from "../datalists/datalists.ts";
import { adjustCount, type CounterKey, type CounterRecord } from "../quotas/counters.ts";
import { collections } from "../records/collections.ts";
import type { WebhookRecord } from "../records/webhook-record.ts";
import { type FormDefinition, fieldsOf } from "./form-definition.ts";
import { type FormRecord, withinBounds } from "./form-record.ts";

/**
 * A form with its webhooks, as read under one version; frozen, as it is shared. What is
 * derived from it (the definition's lookups, the compiled rules of form-rules.ts) is kept
 * beside the frozen form for as long as the snapshot is, so it is built once a version.
 */
export interface FormSnapshot {
  form: FormRecord;
  /** The form record's etag. */
  etag: string;
  webhooks: WebhookRecord[];
  /**
   * The datalists the form's fields name that belong to the form's owner (a form draws
   * options only from those): read with the form, so that F5 and S2 need not read them
   * each time. Which datalists an account owns changes only when one is deleted, and that
   * deletes its entries too, which F5 and S2 still read each time.
   */
  ownedDatalists: readonly string[];
}

/** The snapshots one service instance holds, by form id. */
export interface FormSnapshots {
  /** The snapshot read under `version`, if this instance holds it. */
  get(formId: string, version: number): FormSnapshot | undefined;
  /** Holds `snapshot` as read under `version`, in place of any older one. */
  set(formId: string, version: number, snapshot: FormSnapshot): void;
  /** Drops what is held of a form (this instance changed it). */
  forget(formId: string): void;
}

/** The count of the form's counter record that moves with every change of the form. */
export const formVersionCount = "form_version";

/** The counter record of a form: its submission count and its version. */
export function formCounter(formId: string): CounterKey {
  return { collection: collections.formCounters, partition: formId, id: formId };
}

const snapshotsByInstance = new WeakMap<Context, FormSnapshots>();

/** The snapshots the service instance of `ctx` holds, made on first use. */
export function formSnapshotsOf(ctx: Context): FormSnapshots {
  let held = snapshotsByInstance.get(ctx);
  if (!held) {
    held = createFormSnapshots();
    snapshotsByInstance.set(ctx, held);
  }
  return held;
}

/** Snapshots of at most `capacity` forms, the least recently used dropped first. */
export function createFormSnapshots(capacity = 1000): FormSnapshots {
  const held = new Map<string, { version: number; snapshot: FormSnapshot }>();
  // The form last used, the map's last key: posts in a row to one form move nothing (hot path).
  let latest: string | undefined;
  return {
    get(formId, version) {
      const entry = held.get(formId);
      if (!entry || entry.version !== version) return undefined;
      if (formId !== latest) {
        // Moved to the end: the map's order is the order of use.
        held.delete(formId);
        held.set(formId, entry);
        latest = formId;
      }
      return entry.snapshot;
    },
    set(formId, version, snapshot) {
      held.delete(formId);
      held.set(formId, { version, snapshot });
      latest = formId;
      if (held.size > capacity) held.delete(held.keys().next().value as string);
    },
    forget(formId) {
      held.delete(formId);
      if (formId === latest) latest = undefined;
    },
  };
}

/**
 * Marks a change of a form or of its webhooks: every instance's snapshot of it is stale
 * from now on. Call it after the write, or before a delete.
 */
export async function formChanged(ctx: Context, formId: string): Promise<void> {
  formSnapshotsOf(ctx).forget(formId);
  await adjustCount(ctx, formCounter(formId), formVersionCount, 1);
}

/**
 * The form and its webhooks as of `version` (from its counter record; `null` when there is
 * no counter), held or read from the store. @returns `null` when there is no such form.
 */
export async function formSnapshot(
  ctx: Context,
  formId: string,
  version: number | null,
): Promise<FormSnapshot | null> {
  const held = version === null ? undefined : formSnapshotsOf(ctx).get(formId, version);
  if (held) return held;
  const entry = await ctx.store.get<FormRecord>(collections.forms, formId, formId);
  if (!entry) return null;
  const { items } = await ctx.store.query<WebhookRecord>(collections.webhooks, formId);
  const form = withinBounds(entry.record);
  const snapshot = deepFreeze({
    form,
    etag: entry.etag,
    webhooks: items.map(({ record }) => record),
    ownedDatalists: await ownedDatalistsOf(ctx, form.form_definition, form.owner_user_id),
  });
  if (version !== null) formSnapshotsOf(ctx).set(formId, version, snapshot);
  return snapshot;
}

/** The form's counter record (its counts and version), or `null` when it has none yet. */
export function readFormCounter(
  ctx: Context,
  formId: string,
): Promise<Stored<CounterRecord> | null> {
  const key = formCounter(formId);
  return ctx.store.get<CounterRecord>(key.collection, key.partition, key.id);
}

/**
 * The form's version in its counter record as read, for {@link formSnapshot}: `null` when the
 * form has no counter record yet.
 */
export function versionOf(counter: Stored<CounterRecord> | null): number | null {
  return counter ? (counter.record.counts[formVersionCount] ?? 0) : null;
}

/** The datalists `definition` names that `ownerId` holds. */
async function ownedDatalistsOf(
  ctx: Context,
  definition: FormDefinition,
  ownerId: string,
): Promise<string[]> {
  const named = new Set<string>();
  for (const field of fieldsOf(definition)) {
    if ("datalist_id" in field && typeof field.datalist_id === "string") {
      named.add(field.datalist_id);
    }
  }
  const owned: string[] = [];
  for (const id of named) if (await ownsDatalist(ctx, ownerId, id)) owned.push(id);
  return owned;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

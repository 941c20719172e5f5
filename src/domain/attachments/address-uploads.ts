import { createHash } from "node:crypto";
import { ServiceError } from "../../kernel/errors.ts";
import type { Context } from "../context.ts";
import type { CountChange } from "../quotas/count-changes.ts";
import type { CounterKey } from "../quotas/counters.ts";
import { collections } from "../records/collections.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";
import { unclaimedBytesCount } from "./unclaimed-uploads.ts";

/**
 * The bound on a form's unclaimed uploads per client address: without it, one client fills
 * the form's cap (unclaimed-uploads.ts) and every other respondent's file is refused until
 * the sweep. Each address's unclaimed bytes are counted in a counter record of its own, in
 * the form's partition of `form_counters` (`address-<hash of the address>`), and move in
 * the batches that move the form's `unclaimed_bytes`: the upload's hold and settle (S3), its
 * claim (S2, S6), and its removal (a failed upload, the sweep); a form's deletion deletes
 * them with its counters. A record whose count falls to 0 is deleted in that batch, so a
 * form holds one such record per address that has files waiting now, not per address ever
 * seen: kept in the form's own counter instead, they would grow the record that every S2
 * reads and writes with each address an attacker can rotate through.
 */

/**
 * The key an address is counted under: IPv4 and other strings as given; an IPv6 address by
 * its /64, which one client usually holds whole.
 */
export function addressKeyOf(address: string): string {
  const plain = address.trim().toLowerCase().replace(/%.*$/, "");
  if (!plain.includes(":")) return plain;
  const [head = "", tail] = plain.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  // An IPv4 tail (`::ffff:1.2.3.4`) stands for two groups.
  const written = left.length + right.length + right.filter((group) => group.includes(".")).length;
  const zeros = tail === undefined ? [] : Array(Math.max(0, 8 - written)).fill("0");
  const groups = [...left, ...zeros, ...right].slice(0, 4);
  return `${groups.map((group) => group.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/** The counter of what the address `address` holds of the form `formId`'s unclaimed uploads. */
export function addressCounter(formId: string, address: string): CounterKey {
  const hash = createHash("sha256").update(addressKeyOf(address)).digest("hex").slice(0, 32);
  return { collection: collections.formCounters, partition: formId, id: `address-${hash}` };
}

/** The counter of the address that uploaded `record`. */
export function uploaderCounter(record: AttachmentRecord): CounterKey {
  return addressCounter(record.form_id, record.created_by_device.client_ip_address);
}

/** The most unclaimed bytes one address may hold on a form whose cap is `formCap`. */
export function addressCapOf(ctx: Context, formCap: number): number {
  return Math.min(ctx.limits.unclaimedUploadBytesPerAddress, formCap);
}

/** The 413 of an address whose unclaimed uploads on a form hold `cap` bytes. */
export function addressCapReached(cap: number): ServiceError {
  return new ServiceError(
    "payload_too_large",
    `Your uploaded files waiting for a submission to this form hold as much as one address may (${cap} bytes); submit them, or try again later`,
  );
}

/**
 * The change of `delta` unclaimed bytes of the uploader of `record`; its counter is deleted
 * when it falls to 0.
 */
export function uploaderChange(record: AttachmentRecord, delta: number): CountChange {
  return { key: uploaderCounter(record), deltas: { [unclaimedBytesCount]: delta }, drop: true };
}

/** The changes that take the bytes of `records` (claimed or removed) off their uploaders. */
export function uploadersGiveBack(records: readonly AttachmentRecord[]): CountChange[] {
  const byCounter = new Map<string, CountChange>();
  for (const record of records) {
    const change = uploaderChange(record, -record.file_size);
    const known = byCounter.get(change.key.id);
    if (known) {
      known.deltas[unclaimedBytesCount] =
        (known.deltas[unclaimedBytesCount] ?? 0) - record.file_size;
    } else byCounter.set(change.key.id, change);
  }
  return [...byCounter.values()];
}

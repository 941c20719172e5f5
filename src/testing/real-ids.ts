/**
 * Ids shaped like the ones the service really stores, so that an adapter meets `|`, `:`,
 * `@`, `/` and GUIDs in the suite rather than first in production.
 */
import { v7 as uuidv7 } from "uuid";

/** `n` new record ids (UUIDv7, as the service makes them), in ascending order. */
export function recordIds(n: number): string[] {
  return Array.from({ length: n }, () => uuidv7()).sort();
}

/** A new record id (UUIDv7). */
export function recordId(): string {
  return uuidv7();
}

/** A local account's user id: `local|<guid>`, a partition of datalists and account tokens. */
export function localUserId(): string {
  return `local|${uuidv7()}`;
}

/** A membership partition of an e-mail address: `email:<address>`. */
export function emailPartition(): string {
  return `email:ada.${uuidv7().slice(-12)}@example.com`;
}

/** Partitions of several real shapes: a form id, a local user, an e-mail, a partner's customer. */
export function partitions(): { form: string; user: string; email: string; customer: string } {
  return {
    form: uuidv7(),
    user: localUserId(),
    email: emailPartition(),
    customer: `partner_${uuidv7()}|${uuidv7()}`,
  };
}

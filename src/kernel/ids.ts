import { v7 as uuidv7 } from "uuid";
import { ValidationError } from "./errors.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Random bytes for ids, drawn from the system 4 KiB at a time rather than 16 bytes an id. */
const pool = new Uint8Array(4096);
let drawn = pool.length;
/** The time and the 31-bit sequence of the last id, kept as `uuid`'s own v7 state is. */
let last = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

/**
 * A new record id: a lower-case GUID whose leading bits are the time (UUIDv7), so ids sort
 * by creation, which keeps the embedded store's newest records in one file. Within one
 * millisecond the sequence counts up from a random start, so ids stay in creation order.
 */
export function newId(): string {
  if (drawn === pool.length) {
    crypto.getRandomValues(pool);
    drawn = 0;
  }
  const random = pool.subarray(drawn, drawn + 16);
  drawn += 16;
  const now = Date.now();
  if (now > last.msecs) {
    // The sequence's random start, taken from the same bits as `uuid` takes it.
    const seq = (((random[6] ?? 0) & 0x7f) << 24) | ((random[7] ?? 0) << 16);
    last = { msecs: now, seq: seq | ((random[8] ?? 0) << 8) | (random[9] ?? 0) };
  } else {
    const seq = (last.seq + 1) | 0;
    last = { msecs: seq === 0 ? last.msecs + 1 : last.msecs, seq };
  }
  return uuidv7({ random, msecs: last.msecs, seq: last.seq });
}

/**
 * Reads a GUID from a path segment the way the hosted service accepts them: upper or lower
 * case, optionally wrapped in braces (`{4EE2…}`), and answers its canonical lower-case form.
 * @throws {ValidationError} naming `name` when it is not a GUID.
 */
export function parseGuid(raw: string | undefined, name: string): string {
  // Most ids come as the service writes them: nothing to decode, trim or lower.
  if (raw !== undefined && guidPattern.test(raw)) return raw;
  let value = raw ?? "";
  try {
    value = decodeURIComponent(value);
  } catch {
    // Left as is: a malformed escape is not a GUID either, and fails below.
  }
  value = value.trim().toLowerCase();
  if (value.startsWith("{") && value.endsWith("}")) value = value.slice(1, -1);
  if (!guidPattern.test(value)) {
    throw new ValidationError(`${name} must be a GUID`, [
      { path: name, message: "must be a GUID" },
    ]);
  }
  return value;
}

const guid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const userIdPattern = new RegExp(`^(local|partner_${guid})\\|${guid}$`);

/**
 * Reads a user id (`local|<guid>` or `partner_<guid>|<guid>`, docs/design.md §2) from a path
 * segment, percent-encoded or not, and answers it in lower case.
 * @throws {ValidationError} naming `name` when it is not a user id.
 */
export function parseUserId(raw: string | undefined, name: string): string {
  let value = raw ?? "";
  try {
    value = decodeURIComponent(value);
  } catch {
    // Left as is: a malformed escape is not a user id either, and fails below.
  }
  value = value.trim().toLowerCase();
  if (!userIdPattern.test(value)) {
    throw new ValidationError(`${name} must be a user id such as local|<guid>`, [
      { path: name, message: "must be <identity provider>|<guid>" },
    ]);
  }
  return value;
}

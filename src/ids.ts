import { v7 as uuidv7 } from "uuid";
import { ValidationError } from "./errors.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A new record id: a lower-case GUID whose leading bits are the time (UUIDv7), so ids sort
 * by creation, which keeps the embedded store's newest records in one file.
 */
export function newId(): string {
  return uuidv7();
}

/**
 * Reads a GUID from a path segment the way the hosted service accepts them: upper or lower
 * case, optionally wrapped in braces (`{4EE2…}`), and answers its canonical lower-case form.
 * @throws {ValidationError} naming `name` when it is not a GUID.
 */
export function parseGuid(raw: string | undefined, name: string): string {
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
 * Reads a user id (`local|<guid>` or `partner_<guid>|<guid>`, design.md §2) from a path
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

/**
 * The odd values the fuzz sends: JSON values of every type, strings of every awkward kind,
 * depth bombs, and path ids that are not quite ids.
 */
import type { Random } from "./prng.ts";

/** Strings that trip parsers, escapers and normalisers. */
export const awkwardStrings = [
  "",
  " ",
  "é✓",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀",
  "\u202eevil",
  "\ufeffbom",
  "e\u0301",
  "<script>alert(1)</script>",
  "'; DROP TABLE forms; --",
  "$\u{7b}7*7}{{7*7}}",
  "../../etc/passwd",
  "%00%ff",
  "__proto__",
  "constructor",
  "null",
  "true",
  "-1",
  "1e309",
  "0x10",
  "2026-13-45T99:99:99Z",
  "a@b",
  "@",
  "http://[::1]:0/",
  "javascript:alert(1)",
];

/** A string: short random, awkward, huge, or a number-like one. */
export function anyString(random: Random): string {
  const roll = random.next();
  if (roll < 0.35) return random.text(random.int(0, 40));
  if (roll < 0.8) return random.pick(awkwardStrings);
  if (roll < 0.95) return random.pick(awkwardStrings) + random.text(random.int(1, 20));
  return "x".repeat(random.pick([1_000, 70_000, 300_000]));
}

/** A JSON value of any type (strings, numbers, booleans, null, arrays, objects). */
export function anyValue(random: Random, depth = 0): unknown {
  const roll = random.int(0, depth > 2 ? 5 : 8);
  switch (roll) {
    case 0:
      return anyString(random);
    case 1:
      return random.pick([0, -0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53 + 1, 36, 130, 131]);
    case 2:
      return random.chance(0.5);
    case 3:
      return null;
    case 4:
      return random.int(-5, 5000);
    case 5:
      return random.pick(["S", "M", "Ada", "1", "0", "yes", "2026-11-24"]);
    case 6:
      return Array.from({ length: random.int(0, 4) }, () => anyValue(random, depth + 1));
    case 7:
      return depthBomb(random, random.pick([5, 33, 40, 200, 2_000]));
    default:
      return withKeys(random, random.int(0, 4), depth);
  }
}

function withKeys(random: Random, count: number, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) setOwn(result, anyKey(random), anyValue(random, depth + 1));
  return result;
}

/** A key: a name the service knows, an awkward string, or a prototype name. */
export function anyKey(random: Random): string {
  return random.pick([
    "__proto__",
    "constructor",
    "prototype",
    "id",
    "form_id",
    "owner_user_id",
    "settings",
    "form_fields",
    "unique_system_name",
    "submitted_value",
    "is_draft_submission",
    "entry_value",
    "email",
    "webhook_destination_url",
    random.text(random.int(1, 12)),
    random.pick(awkwardStrings),
  ]);
}

/** Sets an own property, even one named `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** Arrays or objects nested `depth` levels deep, built without recursion. */
export function depthBomb(random: Random, depth: number): unknown {
  const asArrays = random.chance(0.5);
  let value: unknown = random.chance(0.5) ? "bottom" : {};
  for (let i = 0; i < depth; i++) value = asArrays ? [value] : { rules: value };
  return value;
}

/** A path id: the real one, dressed up, or something that is no id at all. */
export function anyId(random: Random, real: string): string {
  const upper = real.toUpperCase();
  if (random.chance(0.6)) return random.pick([real, real, real, upper, `{${real}}`]);
  const forms = [
    real,
    real,
    real,
    upper,
    `{${real}}`,
    `%7B${upper}%7D`,
    `${real}%20`,
    `${real.slice(0, -1)}g`,
    "..",
    ".",
    "%2e%2e",
    "..%2f..%2fetc%2fpasswd",
    "%ff",
    "%",
    "%00",
    "%F0%9F%98%80",
    "null",
    "__proto__",
    "constructor",
    "0",
    "-1",
    "{}",
    "{",
    "a".repeat(random.pick([37, 129, 5000])),
    encodeText(random.pick(awkwardStrings)),
    encodeText(random.text(random.int(1, 40))),
    randomGuid(random),
  ];
  return random.pick(forms);
}

/** `text` percent-encoded, lone surrogates as U+FFFD (as a URL would have them). */
export function encodeText(text: string): string {
  return encodeURIComponent(text.replace(/\p{Surrogate}/gu, "\ufffd"));
}

/** A well-formed GUID no record has. */
export function randomGuid(random: Random): string {
  const hex = random.text(32, "0123456789abcdef");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

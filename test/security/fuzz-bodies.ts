/**
 * Bodies the fuzz sends: a route's valid JSON body mutated (fields dropped, added, of the
 * wrong type, huge, deep), JSON that is not JSON, and multipart bodies of every bad shape.
 */

import { anyKey, anyString, anyValue, setOwn } from "./fuzz-values.ts";
import type { Random } from "./prng.ts";

/** A body and the content type it claims, if any. */
export interface FuzzBody {
  body: string | Uint8Array<ArrayBuffer>;
  contentType?: string;
}

/** A mutation of `sample` as JSON text, or text that is not JSON at all. */
export function jsonBody(random: Random, sample: unknown): string {
  const roll = random.next();
  if (roll < 0.06)
    return random.pick([
      "",
      "{",
      "nul",
      "'x'",
      "<a/>",
      '{"a":1,}',
      "[1,]",
      "\u0000",
      "NaN",
      '{"a":1}{',
    ]);
  if (roll < 0.1) return JSON.stringify(random.pick([null, 1, "text", true, [], [sample]]));
  if (roll < 0.13) return textBomb(random.pick([33, 1_000, 10_000, 100_000]));
  if (roll < 0.145) return JSON.stringify({ value: "x".repeat(1_100_000) });
  if (roll < 0.15)
    return JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ entry_value: `e${i}` })));
  const copy = structuredClone(sample);
  if (roll < 0.2) return JSON.stringify(copy);
  let mutated: unknown = copy;
  for (let i = random.int(1, 3); i > 0; i--) mutated = mutate(random, mutated);
  return JSON.stringify(mutated);
}

/** Changes one place of `value`: drops, adds or retypes a member somewhere inside it. */
function mutate(random: Random, value: unknown): unknown {
  if (value === null || typeof value !== "object" || random.chance(0.2)) {
    return random.chance(0.7) ? anyValue(random) : value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || random.chance(0.2)) value.push(anyValue(random));
    else {
      const index = random.int(0, value.length - 1);
      value[index] = mutate(random, value[index]);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const roll = random.next();
  if (keys.length === 0 || roll < 0.2) setOwn(record, anyKey(random), anyValue(random));
  else {
    const key = random.pick(keys);
    if (roll < 0.4) delete record[key];
    else if (roll < 0.55) record[key] = anyString(random);
    else record[key] = mutate(random, record[key]);
  }
  return value;
}

/** JSON nested `depth` levels deep, as text (too deep for `JSON.stringify` to write). */
function textBomb(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${"]}".repeat(depth)}`;
}

const encoder = new TextEncoder();

/** A multipart body: a good upload, or one of its broken shapes. */
export function multipartBody(random: Random, fileField: string): FuzzBody {
  const boundary = `fuzz${random.text(random.int(1, 30), "abcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=?")}`;
  const name = random.pick([
    fileField,
    fileField,
    fileField,
    "name_1",
    "",
    anyString(random).slice(0, 200),
  ]);
  const filename = random.pick([
    "cv.txt",
    "../../etc/passwd",
    "",
    'a"b.txt',
    "é✓.txt",
    "x".repeat(5000),
  ]);
  const type = random.pick(["text/plain", "application/octet-stream", "", "image/png", "x/y;;;"]);
  const content = random.text(random.pick([0, 10, 4096, 4097, 20_000]));
  const part = (n: string, file: boolean, data: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${n}"${file ? `; filename="${filename}"` : ""}\r\n${type ? `Content-Type: ${type}\r\n` : ""}\r\n${data}\r\n`;
  const end = `--${boundary}--\r\n`;
  const good = part(name, true, content) + end;
  let text: string;
  switch (random.int(0, 9)) {
    case 0:
      text = part("name_1", false, "Ada") + end;
      break;
    case 1:
      text = part(name, true, content) + part(name, true, content) + end;
      break;
    case 2:
      text = good.slice(0, random.int(0, good.length - 1));
      break;
    case 3:
      text = good.replace(`--${boundary}`, "--other");
      break;
    case 4:
      text = `--${boundary}\r\n\r\nno headers\r\n${end}`;
      break;
    case 5:
      text = random.text(random.int(0, 300));
      break;
    case 6:
      text = part(name, false, content) + part(name, true, content) + end;
      break;
    default:
      text = good;
  }
  const header = random.pick([
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary="${boundary}"`,
    "multipart/form-data",
    "multipart/form-data; boundary=",
    `multipart/form-data; boundary=${"b".repeat(100)}`,
    `multipart/mixed; boundary=${boundary}`,
    `text/plain; boundary=${boundary}`,
  ]);
  return { body: encoder.encode(text), contentType: header };
}

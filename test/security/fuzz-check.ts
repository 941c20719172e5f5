/**
 * What every fuzzed answer must be: never a 5xx, every 4xx the failure envelope of
 * docs/design.md §8 with a known code matching its status, and no stack trace or file path in
 * any answer.
 */
import { errorStatus } from "../../src/kernel/errors.ts";

const root = new URL("../../", import.meta.url).pathname;
const stackMarks = [
  /\n\s+at [^\n]*[(:]/,
  /node:internal/,
  /file:\/\//,
  /\/(?:src|adapters|node_modules)\/[\w./-]+\.(?:ts|js|mjs)\b/,
  /\b(?:TypeError|RangeError|SyntaxError|ReferenceError): /,
];
const envelopeKeys = new Set([
  "id",
  "message",
  "action_successful",
  "error",
  "issues",
  "actionSuccessful",
]);

/**
 * Why the answer `text` (status `status`) to `method` on `path` breaks the rules; `null`
 * when it keeps them.
 */
export function problemOf(
  method: string,
  path: string,
  status: number,
  contentType: string,
  text: string,
): string | null {
  if (status >= 500) return `answered ${status}`;
  if (text.includes(root)) return "names a file of the project";
  const mark = stackMarks.find((pattern) => pattern.test(text));
  if (mark) return `looks like a stack trace (${mark})`;
  if (status < 400 || (method === "HEAD" && text === "")) return null;
  // The hosted page answers a browser: its failures are pages with F5's status (by design).
  if (path.startsWith("/f/") && contentType.startsWith("text/html")) return null;
  if (!contentType.startsWith("application/json")) return `a ${status} of type ${contentType}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return `a ${status} whose body is not JSON`;
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return "not an envelope";
  const extra = Object.keys(body).filter((key) => !envelopeKeys.has(key));
  if (extra.length) return `envelope with extra keys ${extra.join(", ")}`;
  if (body.id !== "") return "envelope id is not empty";
  if (body.action_successful !== false) return "envelope action_successful is not false";
  if (typeof body.message !== "string" || body.message === "") return "envelope without a message";
  const code = body.error as keyof typeof errorStatus;
  if (!Object.hasOwn(errorStatus, code)) return `unknown error code ${String(code)}`;
  if (errorStatus[code] !== status) return `error ${code} answered with ${status}`;
  if (body.issues !== undefined && !Array.isArray(body.issues)) return "issues is not a list";
  return null;
}

/**
 * The bot protections a form's owner switches on (`securitysettings.bot_protection`,
 * docs/design.md §11): a proof-of-work challenge on the ALTCHA protocol for S2 and S3, and,
 * for posts from the hosted page, a honeypot field and a least time to fill the form.
 *
 * Every key is derived from the partner token key (`partners.tokenSecret`), which instances
 * behind one address already share: a challenge issued by one instance is checked by
 * another, and so is the page's mark of when it was served.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { type Challenge, createChallenge, randomInt, verifySolution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { ServiceError } from "../../kernel/errors.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { type BotProtection, botProtectionOf } from "./sections/security.ts";
import { markSolutionUsed } from "./used-solutions.ts";

/** How long a challenge may be solved and used, in seconds. */
export const challengeSeconds = 600;
/**
 * The work of a challenge: the solver derives keys (one SHA-256 each) for counters
 * from 0 up to one drawn in this range, about 0.1 to 1 s in a browser.
 */
const challengeWork = { algorithm: "SHA-256", cost: 1, counterFrom: 5_000, counterTo: 50_000 };
/** The longest `Altcha` header read: a payload of ours is about 600 characters. */
const maxSolutionChars = 4096;

/** What a post carries for the bot protections, as the route read it. */
export interface BotMarks {
  /** The `Altcha` header: the base64 payload of a solved challenge. */
  solution?: string | null;
  /** The hosted page's mark of when it was served (`pageMark`), when the page posts. */
  page?: string | null;
  /** The value of the page's honeypot field, when the page posts. */
  honeypot?: string | null;
}

interface Keys {
  challenge: string;
  derivedKey: string;
  page: Buffer;
}

const keysByContext = new WeakMap<Context, Keys>();

function keysOf(ctx: Context): Keys {
  let keys = keysByContext.get(ctx);
  if (!keys) {
    const derive = (label: string) =>
      createHmac("sha256", ctx.partners.tokenKey).update(`formwork bot protection: ${label}`);
    keys = {
      challenge: derive("challenge").digest("hex"),
      derivedKey: derive("derived key").digest("hex"),
      page: derive("page").digest(),
    };
    keysByContext.set(ctx, keys);
  }
  return keys;
}

/** A signed challenge for posts to `formId`, valid for {@link challengeSeconds}. */
export function newChallenge(ctx: Context, formId: string): Promise<Challenge> {
  const keys = keysOf(ctx);
  return createChallenge({
    algorithm: challengeWork.algorithm,
    cost: challengeWork.cost,
    counter: randomInt(challengeWork.counterTo, challengeWork.counterFrom),
    deriveKey,
    data: { form: formId },
    expiresAt: Math.floor(ctx.now().getTime() / 1000) + challengeSeconds,
    hmacSignatureSecret: keys.challenge,
    hmacKeySignatureSecret: keys.derivedKey,
  });
}

/** The refusal of a post that lacks a valid, unexpired, unused solution. */
function challengeRequired(message: string): ServiceError {
  return new ServiceError("challenge_required", message, [{ path: "Altcha", message }]);
}

/**
 * Checks that `solution` (the `Altcha` header) solves a challenge issued for `formId` that
 * has not expired, and spends it (used-solutions.ts): a create in the Store keyed by the
 * challenge's signature, so that a replay to any instance finds it used. Cheap: one HMAC and one store write.
 * @throws {ServiceError} `challenge_required` otherwise.
 */
export async function spendSolution(
  ctx: Context,
  formId: string,
  solution: string | null | undefined,
): Promise<void> {
  if (!solution) throw challengeRequired("This form needs a solved challenge in the Altcha header");
  const payload = payloadOf(solution);
  const parameters = payload?.challenge.parameters;
  const expiresAt = parameters?.expiresAt;
  if (!payload || parameters?.data?.form !== formId || typeof expiresAt !== "number") {
    throw challengeRequired("The Altcha header holds no solved challenge for this form");
  }
  if (expiresAt * 1000 <= ctx.now().getTime()) {
    throw challengeRequired("The challenge has expired: fetch a new one");
  }
  const keys = keysOf(ctx);
  const result = await verifySolution({
    challenge: payload.challenge,
    solution: payload.solution,
    deriveKey,
    hmacSignatureSecret: keys.challenge,
    hmacKeySignatureSecret: keys.derivedKey,
  }).catch(() => null);
  if (!result?.verified) {
    throw challengeRequired("The Altcha header holds no valid solution");
  }
  const signature = payload.challenge.signature as string;
  if (!(await markSolutionUsed(ctx, formId, signature, expiresAt))) {
    throw challengeRequired("This solution was used already: fetch a new challenge");
  }
}

/** The decoded `Altcha` header, or `null` when it is not a payload of the protocol's shape. */
function payloadOf(header: string): { challenge: Challenge; solution: never } | null {
  if (header.length > maxSolutionChars) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
  } catch {
    return null;
  }
  const { challenge, solution } = (payload ?? {}) as Record<string, unknown>;
  const parameters = (challenge as Challenge | undefined)?.parameters;
  if (typeof parameters !== "object" || parameters === null) return null;
  if (typeof (challenge as Challenge).signature !== "string") return null;
  if (typeof solution !== "object" || solution === null) return null;
  return payload as { challenge: Challenge; solution: never };
}

/**
 * The hosted page's mark of when it was served for `formId`: the time in milliseconds and an
 * HMAC over the form id and that time, so that a client cannot make the page older.
 */
export function pageMark(ctx: Context, formId: string): string {
  const servedAt = ctx.now().getTime();
  return `${servedAt}.${pageMac(ctx, formId, servedAt).toString("base64url")}`;
}

function pageMac(ctx: Context, formId: string, servedAt: number): Buffer {
  return createHmac("sha256", keysOf(ctx).page).update(`${formId}.${servedAt}`).digest();
}

/** When the page whose `mark` this is was served, or `null` when the mark is not ours. */
function servedAtOf(ctx: Context, formId: string, mark: string): number | null {
  const match = /^(\d{1,15})\.([\w-]{43})$/.exec(mark);
  if (!match) return null;
  const servedAt = Number(match[1]);
  const given = Buffer.from(match[2] as string, "base64url");
  const expected = pageMac(ctx, formId, servedAt);
  return given.length === expected.length && timingSafeEqual(given, expected) ? servedAt : null;
}

/**
 * What S2 does with a post to `form` (docs/design.md §6): `"store"` it, or `"drop"` it (a
 * page post that filled the honeypot or came too soon: answered as if stored, never stored).
 * The honeypot and the least time act on posts that carry the hosted page's mark, the only
 * client they can tell from a bot; other clients meet the challenge, when it is on, which
 * this checks and spends first.
 * @throws {ServiceError} `challenge_required` when the challenge is on and not met.
 */
export async function screenPost(
  ctx: Context,
  form: FormRecord,
  marks: BotMarks,
): Promise<"store" | "drop"> {
  const protection = botProtectionOf(form);
  if (protection.challenge) await spendSolution(ctx, form.id, marks.solution);
  return pageSaysBot(ctx, form.id, protection, marks) ? "drop" : "store";
}

/**
 * S3's check: a form whose challenge is on takes an upload only with a solution of its own.
 * @throws {ServiceError} `challenge_required` when the challenge is on and not met.
 */
export async function screenUpload(
  ctx: Context,
  form: FormRecord,
  solution: string | null | undefined,
): Promise<void> {
  if (botProtectionOf(form).challenge) await spendSolution(ctx, form.id, solution);
}

function pageSaysBot(
  ctx: Context,
  formId: string,
  protection: BotProtection,
  marks: BotMarks,
): boolean {
  if (protection.honeypot && marks.honeypot) return true;
  if (protection.min_fill_seconds === 0 && !protection.honeypot) return false;
  if (marks.page === undefined || marks.page === null) return false;
  const servedAt = servedAtOf(ctx, formId, marks.page);
  // A mark that is not ours claims to be the page and is not: a bot's forgery.
  if (servedAt === null) return true;
  return ctx.now().getTime() - servedAt < protection.min_fill_seconds * 1000;
}

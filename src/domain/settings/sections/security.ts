/**
 * `securitysettings` (docs/design.md §11): whether only signed-in callers may see and submit
 * the form (`requires_login`, read where a form is opened to submit: submit-access.ts), the
 * bot protections its owner switched on (`bot_protection`, read by bot-protection.ts), and
 * how long its submissions are kept (`submission_retention_days`, an extension: the
 * retention sweep deletes older ones, docs/design.md §15), and which sites may frame the
 * hosted page (`embed_origins`, an extension: its `frame-ancestors` and the origins its
 * messages go to, docs/design.md §21).
 */
import * as v from "valibot";
import type { FormRecord } from "../../forms/form-record.ts";
import {
  maxRetentionDays,
  minRetentionDays,
  registerForRetention,
} from "../../forms/form-retention.ts";
import type { SettingsSection } from "./section.ts";

/** The longest `min_fill_seconds`: an hour. */
const maxFillSeconds = 3600;

const botProtection = v.strictObject({
  /** S2 and S3 need a solved proof-of-work challenge (`Altcha` header). */
  challenge: v.optional(v.boolean(), false),
  /** The hosted page carries a hidden field; a page post that fills it is not stored. */
  honeypot: v.optional(v.boolean(), false),
  /** A page post sooner than this after the page was served is not stored. */
  min_fill_seconds: v.optional(
    v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(maxFillSeconds)),
    0,
  ),
});

const retentionMessage = `must be a whole number of days from ${minRetentionDays} to ${maxRetentionDays}, or null to keep submissions for ever`;

/** Days a submission is kept; absent or `null`: for ever. */
const retentionDays = v.nullable(
  v.pipe(
    v.number(retentionMessage),
    v.safeInteger(retentionMessage),
    v.minValue(minRetentionDays, retentionMessage),
    v.maxValue(maxRetentionDays, retentionMessage),
  ),
);

/** The most origins `embed_origins` may list: a CSP header stays short. */
export const maxEmbedOrigins = 20;

const originMessage =
  "must be an http or https origin such as https://shop.example, with no path, in lower case";

/**
 * Whether `text` is an origin as a browser writes it (`event.origin`, `frame-ancestors`):
 * http(s), a host of letters, digits, dots and hyphens (an IPv6 literal or any other
 * character is no CSP host-source) and an optional port, nothing after it.
 */
function isOrigin(text: string): boolean {
  if (!/^https?:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/.test(text)) return false;
  try {
    return new URL(text).origin === text;
  } catch {
    return false;
  }
}

/** The sites that may frame the hosted page; absent or `null`: any site; `[]`: none. */
const embedOrigins = v.pipe(
  v.array(
    v.pipe(v.string(originMessage), v.check(isOrigin, originMessage)),
    "must be a list of origins",
  ),
  v.maxLength(maxEmbedOrigins, `must list at most ${maxEmbedOrigins} origins`),
);

const schema = v.looseObject({
  requires_login: v.optional(v.boolean(), false),
  bot_protection: v.optional(botProtection),
  submission_retention_days: v.optional(retentionDays),
  embed_origins: v.optional(v.nullable(embedOrigins)),
});

/** The bot protections of a form; all off when its section has none. */
export type BotProtection = v.InferOutput<typeof botProtection>;

const noProtection: BotProtection = { challenge: false, honeypot: false, min_fill_seconds: 0 };

/** The `securitysettings` section. */
export const securitySettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "securitysettings",
  schema,
  // The form must be in the retention registry before it holds a retention (form-retention.ts).
  async beforeSave(ctx, formId, value) {
    if (value.submission_retention_days != null) await registerForRetention(ctx, formId);
  },
  // F5 tells clients which protections apply (the hosted page draws its honeypot and fetches
  // a challenge from it); `requires_login` stays the owner's business.
  rendered: {
    position: 7,
    value: ({ stored }) => {
      const protection = protectionIn(stored);
      return protection === noProtection ? undefined : { bot_protection: protection };
    },
  },
};

/**
 * Whether only signed-in callers may see and submit `form`: a property read, not a parse,
 * as S2 asks on every post (F2 stored the section checked).
 */
export function loginRequired(form: FormRecord): boolean {
  const section = form.form_configuration[securitySettings.name] as
    | { requires_login?: unknown }
    | undefined;
  // Truthy, as it always was read: a value stored some other way errs towards signing in.
  return Boolean(section?.requires_login);
}

/**
 * The days `form` keeps its submissions, or `undefined` for ever: a property read, lenient (a
 * value stored before it was checked keeps them for ever).
 */
export function retentionDaysOf(form: FormRecord): number | undefined {
  const section = form.form_configuration[securitySettings.name] as
    | { submission_retention_days?: unknown }
    | undefined;
  const days = section?.submission_retention_days;
  return typeof days === "number" &&
    Number.isSafeInteger(days) &&
    days >= minRetentionDays &&
    days <= maxRetentionDays
    ? days
    : undefined;
}

/**
 * The origins that may frame `form`'s hosted page (`embed_origins`), or `undefined` when
 * any site may: a property read, lenient (a list stored some other way is read as `[]`, so
 * it errs towards framing by no one; an entry that is not an origin is left out).
 */
export function embedOriginsOf(form: FormRecord): string[] | undefined {
  const section = form.form_configuration[securitySettings.name] as
    | { embed_origins?: unknown }
    | undefined;
  const origins = section?.embed_origins;
  if (origins === undefined || origins === null) return undefined;
  if (!Array.isArray(origins)) return [];
  return origins
    .filter((origin): origin is string => typeof origin === "string" && isOrigin(origin))
    .slice(0, maxEmbedOrigins);
}

/** The bot protections `form`'s owner switched on (a property read: S2 asks on every post). */
export function botProtectionOf(form: FormRecord): BotProtection {
  return protectionIn(form.form_configuration[securitySettings.name]);
}

/**
 * The bot protections of F5's answer (`form_configuration`), for the hosted page; all off
 * when F5 left them out.
 */
export function renderedBotProtection(configuration: Record<string, unknown>): BotProtection {
  return protectionIn(configuration[securitySettings.name]);
}

function protectionIn(section: unknown): BotProtection {
  const stored = (section as { bot_protection?: Partial<BotProtection> } | undefined)
    ?.bot_protection;
  if (!stored || typeof stored !== "object") return noProtection;
  const seconds = stored.min_fill_seconds;
  const protection: BotProtection = {
    challenge: stored.challenge === true,
    honeypot: stored.honeypot === true,
    min_fill_seconds:
      typeof seconds === "number" && Number.isSafeInteger(seconds) && seconds > 0
        ? Math.min(seconds, maxFillSeconds)
        : 0,
  };
  const on = protection.challenge || protection.honeypot || protection.min_fill_seconds > 0;
  return on ? protection : noProtection;
}

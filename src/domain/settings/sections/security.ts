/**
 * `securitysettings` (docs/design.md §11): whether only signed-in callers may see and submit
 * the form (`requires_login`, read where a form is opened to submit: submit-access.ts), the
 * bot protections its owner switched on (`bot_protection`, read by bot-protection.ts), and
 * how long its submissions are kept (`submission_retention_days`, an extension: the
 * retention sweep deletes older ones, docs/design.md §15).
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

const schema = v.looseObject({
  requires_login: v.optional(v.boolean(), false),
  bot_protection: v.optional(botProtection),
  submission_retention_days: v.optional(retentionDays),
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

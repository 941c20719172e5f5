import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type * as v from "valibot";
import {
  flag,
  oneOf,
  parseEnvironment,
  text,
  url,
  type Variable,
  wholeNumber,
} from "./environment.ts";
import { type LogLevel, logLevels } from "./logger.ts";

/** The standalone server's settings, read from the environment (docs/design.md §10). */
export interface ServerConfig {
  /** Where the lowdb files and the attachment files live. */
  dataDir: string;
  port: number;
  host: string;
  /** The address clients reach the server at; `{storage_url}` is `<publicUrl>/storage`. */
  publicUrl: string;
  /** The admin secret given in `ADMIN_SECRET`, if any. */
  adminSecret: string | undefined;
  /** The largest attachment accepted, in bytes (`MAX_UPLOAD_BYTES`). */
  maxUploadBytes: number;
  /** Webhooks may point at private addresses (`ALLOW_PRIVATE_WEBHOOKS=1`). */
  allowPrivateWebhooks: boolean;
  /** The SMTP server of confirmation e-mails (`SMTP_URL`); unset: `.eml` files under `DATA_DIR/mail/`. */
  smtpUrl: string | undefined;
  /** The `From` of confirmation e-mails (`MAIL_FROM`). @default "forms@localhost" */
  mailFrom: string;
  /** The wait before the second webhook attempt, doubling after (`WEBHOOK_RETRY_BASE_MS`). */
  webhookRetryBaseMs: number;
  /** Webhook attempts in all (`WEBHOOK_MAX_ATTEMPTS`). */
  webhookMaxAttempts: number;
  /**
   * How long an instance's claim on a delivery lasts unless renewed (`WEBHOOK_LEASE_MS`):
   * how soon another instance takes over the deliveries of one that died.
   */
  webhookLeaseMs: number;
  /** The least severe log lines written (`LOG_LEVEL`); `info` writes one line per request. */
  logLevel: LogLevel;
  /** Requests a minute per client address to F5, S2, S3 and the hosted page; 0 is off. */
  rateLimitPublicPerMinute: number;
  /** Requests a minute per token, partner or customer to the restricted routes; 0 is off. */
  rateLimitCredentialPerMinute: number;
  /** How long a client may take to send a request's headers (`HEADERS_TIMEOUT_MS`). */
  headersTimeoutMs: number;
  /**
   * How long a client may take to send a whole request, body included
   * (`REQUEST_TIMEOUT_MS`): a client that stalls or trickles is answered 408 and cut off.
   */
  requestTimeoutMs: number;
  /**
   * The most bytes of uploaded files no submission holds yet, per form
   * (`MAX_UNCLAIMED_UPLOAD_BYTES`); past it S3 answers 413.
   */
  maxUnclaimedUploadBytes: number;
  /**
   * How often the sweep runs (`SWEEP_INTERVAL_MS`): unclaimed uploads, deletions a crash cut
   * short, submissions past their form's retention; 0 is off.
   */
  sweepIntervalMs: number;
  /** How many days audit entries are kept (`AUDIT_RETENTION_DAYS`, docs/design.md §25). */
  auditRetentionDays: number;
  /**
   * How long a stop waits for the requests in flight before it cuts them off
   * (`STOP_TIMEOUT_MS`, docs/design.md §10).
   */
  stopTimeoutMs: number;
  /**
   * The port of `GET /metrics`, a listener of its own at `host` (`METRICS_PORT`,
   * docs/design.md §10); unset: no metrics are kept.
   */
  metricsPort: number | undefined;
  /**
   * Stripe's keys (`STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`) and the address of its API
   * (`STRIPE_API_URL`, only for a stand-in); unset, forms cannot take payments
   * (docs/design.md §26).
   */
  stripe: { secretKey: string; webhookSecret: string; apiUrl?: string } | undefined;
  /**
   * How far V8's heap may grow past what its last full collection left live, in percent
   * (`HEAP_GROWING_PERCENT`, docs/design.md §22); 0 leaves it to V8.
   */
  heapGrowingPercent: number;
}

/**
 * The standalone server's variables (docs/design.md §10, README "Configuration of the
 * standalone server"): each name with what it accepts and its default. The Azure server's
 * add theirs (examples/azure/config.ts).
 */
export const variables = {
  DATA_DIR: text("./data"),
  PORT: wholeNumber(3000, 0, 65535),
  HOST: text("127.0.0.1"),
  PUBLIC_URL: text(),
  ADMIN_SECRET: text(),
  MAX_UPLOAD_BYTES: wholeNumber(25 * 1024 * 1024, 1),
  MAX_UNCLAIMED_UPLOAD_BYTES: wholeNumber(undefined, 1),
  AUDIT_RETENTION_DAYS: wholeNumber(400, 1),
  HEADERS_TIMEOUT_MS: wholeNumber(20_000, 1),
  REQUEST_TIMEOUT_MS: wholeNumber(120_000, 1),
  STOP_TIMEOUT_MS: wholeNumber(30_000, 0),
  METRICS_PORT: wholeNumber(undefined, 0, 65535),
  ALLOW_PRIVATE_WEBHOOKS: flag(false),
  WEBHOOK_RETRY_BASE_MS: wholeNumber(1000, 1),
  WEBHOOK_MAX_ATTEMPTS: wholeNumber(8, 1),
  // Renewed every third of it: shorter, and a busy store or event loop would lose claims.
  WEBHOOK_LEASE_MS: wholeNumber(30_000, 1000),
  SWEEP_INTERVAL_MS: wholeNumber(600_000, 0),
  SMTP_URL: url(["smtp:", "smtps:"], "an SMTP URL"),
  MAIL_FROM: text("forms@localhost"),
  LOG_LEVEL: oneOf(logLevels, "info"),
  RATE_LIMIT_PUBLIC_PER_MINUTE: wholeNumber(300, 0),
  RATE_LIMIT_CREDENTIAL_PER_MINUTE: wholeNumber(3000, 0),
  STRIPE_SECRET_KEY: text(),
  STRIPE_WEBHOOK_SECRET: text(),
  STRIPE_API_URL: url(["https:", "http:"], "a URL"),
  HEAP_GROWING_PERCENT: wholeNumber(50, 0, 300),
} satisfies Record<string, Variable>;

/** The parsed values of {@link variables}. */
export type Values = v.InferOutput<v.ObjectSchema<typeof variables, undefined>>;

/** What the variables must hold together. */
export const together = [
  // Node refuses a headers timeout longer than the request timeout.
  (values: Values) =>
    values.HEADERS_TIMEOUT_MS > values.REQUEST_TIMEOUT_MS
      ? `HEADERS_TIMEOUT_MS (${values.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${values.REQUEST_TIMEOUT_MS})`
      : undefined,
  // An upload holds its largest size against the form's unclaimed bytes while it streams.
  (values: Values) =>
    values.MAX_UNCLAIMED_UPLOAD_BYTES !== undefined &&
    values.MAX_UPLOAD_BYTES > values.MAX_UNCLAIMED_UPLOAD_BYTES
      ? `MAX_UPLOAD_BYTES (${values.MAX_UPLOAD_BYTES}) must not exceed MAX_UNCLAIMED_UPLOAD_BYTES (${values.MAX_UNCLAIMED_UPLOAD_BYTES})`
      : undefined,
  (values: Values) =>
    values.METRICS_PORT !== undefined &&
    values.METRICS_PORT !== 0 &&
    values.METRICS_PORT === values.PORT
      ? `METRICS_PORT (${values.METRICS_PORT}) must differ from PORT: the metrics have a listener of their own`
      : undefined,
  // One key alone takes no payment and verifies no event: a half-done set-up, said at start.
  (values: Values) =>
    (values.STRIPE_SECRET_KEY === undefined) !== (values.STRIPE_WEBHOOK_SECRET === undefined)
      ? `STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together, not ${values.STRIPE_SECRET_KEY ? "STRIPE_SECRET_KEY" : "STRIPE_WEBHOOK_SECRET"} alone`
      : undefined,
  (values: Values) => {
    const publicUrl = values.PUBLIC_URL?.replace(/\/+$/, "");
    return publicUrl === undefined || URL.canParse(publicUrl)
      ? undefined
      : `PUBLIC_URL must be a URL, not ${JSON.stringify(values.PUBLIC_URL)}`;
  },
];

/**
 * Reads the settings from `env`.
 * @throws {ConfigError} with one line for each value that is missing or makes no sense.
 */
export function readConfig(env: NodeJS.ProcessEnv): ServerConfig {
  return configOf(parseEnvironment(variables, env, together));
}

/** The settings of parsed `values`, with the defaults that depend on other variables. */
export function configOf(values: Values): ServerConfig {
  return {
    dataDir: resolve(values.DATA_DIR),
    port: values.PORT,
    host: values.HOST,
    publicUrl: (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, ""),
    adminSecret: values.ADMIN_SECRET,
    maxUploadBytes: values.MAX_UPLOAD_BYTES,
    maxUnclaimedUploadBytes:
      values.MAX_UNCLAIMED_UPLOAD_BYTES ?? Math.max(100 * 1024 * 1024, values.MAX_UPLOAD_BYTES),
    auditRetentionDays: values.AUDIT_RETENTION_DAYS,
    headersTimeoutMs: values.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
    stopTimeoutMs: values.STOP_TIMEOUT_MS,
    metricsPort: values.METRICS_PORT,
    allowPrivateWebhooks: values.ALLOW_PRIVATE_WEBHOOKS,
    webhookRetryBaseMs: values.WEBHOOK_RETRY_BASE_MS,
    webhookMaxAttempts: values.WEBHOOK_MAX_ATTEMPTS,
    webhookLeaseMs: values.WEBHOOK_LEASE_MS,
    sweepIntervalMs: values.SWEEP_INTERVAL_MS,
    smtpUrl: values.SMTP_URL,
    mailFrom: values.MAIL_FROM,
    logLevel: values.LOG_LEVEL,
    rateLimitPublicPerMinute: values.RATE_LIMIT_PUBLIC_PER_MINUTE,
    rateLimitCredentialPerMinute: values.RATE_LIMIT_CREDENTIAL_PER_MINUTE,
    stripe:
      values.STRIPE_SECRET_KEY && values.STRIPE_WEBHOOK_SECRET
        ? {
            secretKey: values.STRIPE_SECRET_KEY,
            webhookSecret: values.STRIPE_WEBHOOK_SECRET,
            ...(values.STRIPE_API_URL ? { apiUrl: values.STRIPE_API_URL } : {}),
          }
        : undefined,
    heapGrowingPercent: values.HEAP_GROWING_PERCENT,
  };
}

/** Where the server keeps the admin secret it generated for itself. */
export function adminSecretFile(dataDir: string): string {
  return join(dataDir, "admin-secret");
}

/**
 * The admin secret: `ADMIN_SECRET` when set; otherwise the one kept in the data folder,
 * made on first start, so that the admin CLI works out of the box on this machine.
 */
export async function resolveAdminSecret(config: ServerConfig): Promise<string> {
  return config.adminSecret ?? keptSecret(config.dataDir, adminSecretFile(config.dataDir));
}

/** The key that signs download links, kept in the data folder so links survive a restart. */
export function resolveSigningSecret(config: ServerConfig): Promise<string> {
  return keptSecret(config.dataDir, join(config.dataDir, "signing-secret"));
}

/**
 * The key that signs customer login tokens (P1), kept in the data folder so that tokens
 * survive a restart.
 */
export function resolveCustomerTokenSecret(config: ServerConfig): Promise<string> {
  return keptSecret(config.dataDir, join(config.dataDir, "customer-token-secret"));
}

/**
 * Creates the data folder, or closes an existing one, to its owner (`0700`): it holds
 * submissions, which are personal data, and the service's secrets.
 */
export async function secureDataDir(config: ServerConfig): Promise<void> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  await chmod(config.dataDir, 0o700);
}

/**
 * A secret the server makes for itself: 32 random bytes in hex, so that it never starts with
 * `-`, which the admin CLI's `--admin-secret <secret>` would take for an option.
 */
export function newKeptSecret(): string {
  return randomBytes(32).toString("hex");
}

async function keptSecret(dataDir: string, file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const secret = newKeptSecret();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  return secret;
}

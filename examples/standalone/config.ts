import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
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
}

/**
 * Reads the settings from `env`.
 * @throws {Error} with a message naming the variable for a value that makes no sense.
 */
export function readConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const port = Number(env.PORT ?? "3000");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be a whole number from 0 to 65535, not ${JSON.stringify(env.PORT)}`);
  }
  const host = env.HOST || "127.0.0.1";
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, "");
  if (!URL.canParse(publicUrl))
    throw new Error(`PUBLIC_URL must be a URL, not ${JSON.stringify(publicUrl)}`);
  const maxUploadBytes = wholeNumber(env, "MAX_UPLOAD_BYTES", 25 * 1024 * 1024, 1);
  const headersTimeoutMs = wholeNumber(env, "HEADERS_TIMEOUT_MS", 20_000, 1);
  const requestTimeoutMs = wholeNumber(env, "REQUEST_TIMEOUT_MS", 120_000, 1);
  // Node refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new Error(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  const maxUnclaimedUploadBytes = wholeNumber(
    env,
    "MAX_UNCLAIMED_UPLOAD_BYTES",
    Math.max(100 * 1024 * 1024, maxUploadBytes),
    1,
  );
  // An upload holds its largest size against the form's unclaimed bytes while it streams.
  if (maxUploadBytes > maxUnclaimedUploadBytes) {
    throw new Error(
      `MAX_UPLOAD_BYTES (${maxUploadBytes}) must not exceed MAX_UNCLAIMED_UPLOAD_BYTES (${maxUnclaimedUploadBytes})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    maxUnclaimedUploadBytes,
    auditRetentionDays: wholeNumber(env, "AUDIT_RETENTION_DAYS", 400, 1),
    dataDir: resolve(env.DATA_DIR || "./data"),
    maxUploadBytes,
    allowPrivateWebhooks: env.ALLOW_PRIVATE_WEBHOOKS === "1",
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || "forms@localhost",
    webhookRetryBaseMs: wholeNumber(env, "WEBHOOK_RETRY_BASE_MS", 1000, 1),
    webhookMaxAttempts: wholeNumber(env, "WEBHOOK_MAX_ATTEMPTS", 8, 1),
    // Renewed every third of it: shorter, and a busy store or event loop would lose claims.
    webhookLeaseMs: wholeNumber(env, "WEBHOOK_LEASE_MS", 30_000, 1000),
    logLevel: logLevelOf(env.LOG_LEVEL),
    sweepIntervalMs: wholeNumber(env, "SWEEP_INTERVAL_MS", 600_000, 0),
    rateLimitPublicPerMinute: wholeNumber(env, "RATE_LIMIT_PUBLIC_PER_MINUTE", 300, 0),
    rateLimitCredentialPerMinute: wholeNumber(env, "RATE_LIMIT_CREDENTIAL_PER_MINUTE", 3000, 0),
    port,
    host,
    publicUrl,
    adminSecret: env.ADMIN_SECRET || undefined,
  };
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number) {
  const raw = env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(
      `${name} must be a whole number of at least ${min}, not ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

function logLevelOf(raw: string | undefined): LogLevel {
  const level = raw?.trim().toLowerCase() || "info";
  const known = logLevels.find((name) => name === level);
  if (!known) {
    throw new Error(`LOG_LEVEL must be one of ${logLevels.join(", ")}, not ${JSON.stringify(raw)}`);
  }
  return known;
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

async function keptSecret(dataDir: string, file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const secret = randomBytes(32).toString("base64url");
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  return secret;
}

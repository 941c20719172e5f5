/**
 * The servers' log: pino writing one JSON line per event to stdout, at the level of
 * `LOG_LEVEL` (docs/design.md §10). The service builds its lines from named fields only; the
 * redaction below is a second line of defence should a secret's name ever reach a line.
 */
import { type Logger, pino } from "pino";

/** The values `LOG_LEVEL` accepts, from the most to the least verbose. */
export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** One of {@link logLevels}. */
export type LogLevel = (typeof logLevels)[number];

/** Names of credentials, in the spellings of the interface's headers and answers. */
const secretNames = [
  "authorization",
  "Authorization",
  "TokenSecret",
  "token_secret",
  "PartnerSecret",
  "partner_secret",
  "AdminSecret",
  "secret",
  "signingSecret",
];

/** A pino logger at `level` on stdout, which censors credential-named fields two deep. */
export function createLogger(level: LogLevel): Logger {
  const paths = secretNames.flatMap((name) => [name, `*.${name}`]);
  return pino({ level, redact: { paths, censor: "[redacted]" } });
}

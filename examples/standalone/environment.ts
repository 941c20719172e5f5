/**
 * Reading the servers' environment through one valibot schema (docs/design.md §10): every
 * variable is an entry of `variables` (standalone) or `azureVariables` (examples/azure), and
 * every bad or missing value becomes one line naming the variable, the value and what is
 * allowed. A start with such lines prints them all and exits 2, with no stack.
 */
import * as v from "valibot";

/** A variable's raw value, as the environment holds it (an empty value counts as unset). */
type Raw = string | undefined;

/** What one variable accepts: a schema from its raw value to its typed one. */
export type Variable<T = unknown> = v.GenericSchema<Raw, T>;

/** The settings a start refused, one line each. */
export class ConfigError extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join("\n"));
  }
}

/** A whole number from `min` (to `max` when given), `fallback` when unset. */
export function wholeNumber(fallback: number, min: number, max?: number): Variable<number>;
export function wholeNumber(
  fallback: undefined,
  min: number,
  max?: number,
): Variable<number | undefined>;
export function wholeNumber(
  fallback: number | undefined,
  min: number,
  max?: number,
): Variable<number | undefined> {
  const allowed =
    max === undefined
      ? `a whole number of at least ${min}`
      : `a whole number from ${min} to ${max}`;
  const number = v.pipe(
    v.string(),
    v.check((raw) => {
      const value = Number(raw);
      return /^\s*\d+\s*$/.test(raw) && Number.isSafeInteger(value) && value >= min
        ? max === undefined || value <= max
        : false;
    }, allowed),
    v.transform(Number),
  );
  return fallback === undefined ? v.optional(number) : v.optional(number, String(fallback));
}

/** `0` or `1`, `fallback` when unset. */
export function flag(fallback: boolean): Variable<boolean> {
  return v.optional(
    v.pipe(
      v.string(),
      v.check((raw) => raw === "0" || raw === "1", "0 or 1"),
      v.transform((raw) => raw === "1"),
    ),
    fallback ? "1" : "0",
  );
}

/** Any text; `fallback` when unset (`undefined`: stays unset). */
export function text(fallback: string): Variable<string>;
export function text(): Variable<string | undefined>;
export function text(fallback?: string): Variable<string | undefined> {
  return fallback === undefined ? v.optional(v.string()) : v.optional(v.string(), fallback);
}

/** Text that must be set. */
export function requiredText(): Variable<string> {
  return v.string("set");
}

/** One of `names`, trimmed and in any case, `fallback` when unset. */
export function oneOf<const T extends string>(names: readonly T[], fallback: T): Variable<T> {
  return v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => raw.trim().toLowerCase()),
      v.picklist(names, `one of ${names.join(", ")}`),
    ),
    fallback,
  );
}

/** A URL whose scheme is one of `schemes` (`"smtp:"`); `required`: must be set. */
export function url(schemes: readonly string[], what: string, required: true): Variable<string>;
export function url(schemes: readonly string[], what: string): Variable<string | undefined>;
export function url(
  schemes: readonly string[],
  what: string,
  required = false,
): Variable<string | undefined> {
  const parsed = v.pipe(
    v.string(required ? "set" : what),
    v.check(
      (raw) => URL.canParse(raw) && schemes.includes(new URL(raw).protocol),
      `${what} (${schemes.map((scheme) => `${scheme}//…`).join(" or ")})`,
    ),
  );
  return required ? parsed : v.optional(parsed);
}

/**
 * Parses the variables of `schema` out of `env`, then `checks` them together.
 * @throws {ConfigError} with one line per bad or missing value, all of them
 */
export function parseEnvironment<E extends Record<string, Variable>>(
  entries: E,
  env: NodeJS.ProcessEnv,
  checks: ((values: v.InferOutput<v.ObjectSchema<E, undefined>>) => string | undefined)[] = [],
): v.InferOutput<v.ObjectSchema<E, undefined>> {
  const raw: Record<string, Raw> = {};
  for (const name of Object.keys(entries)) raw[name] = env[name] || undefined;
  const result = v.safeParse(v.object(entries), raw);
  if (!result.success) {
    const lines = new Set<string>();
    for (const issue of result.issues) {
      const name = String(issue.path?.[0]?.key ?? "");
      const value = raw[name];
      lines.add(
        value === undefined
          ? `${name} must be set`
          : `${name} must be ${issue.message}, not ${JSON.stringify(value)}`,
      );
    }
    throw new ConfigError([...lines]);
  }
  const problems = checks.flatMap((check) => check(result.output) ?? []);
  if (problems.length > 0) throw new ConfigError(problems);
  return result.output;
}

/**
 * Runs `read` (a server's reading of its settings); when it refuses them, prints each line
 * on stderr and exits 2, as a start with bad settings does.
 */
export function settingsOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const line of error.lines) console.error(line);
    process.exit(2);
  }
}

/**
 * What the command line of `formwork` (examples/standalone/cli.ts) shares between its
 * commands: options given as `--name value` joined into `--name=value` before `parseArgs`
 * reads them, so that a value starting with `-` (a generated secret may) is taken as the
 * value in both forms.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * `argv` with each `--name value` of a string option of `options` (or its short form) as
 * `--name=value`, whatever `value` starts with: `parseArgs` refuses a value starting with
 * `-` in the spaced form, as "ambiguous". Everything after `--` stays as it is.
 */
export function joinedValues(argv: readonly string[], options: ParseArgsConfig["options"] = {}) {
  const takesValue = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== "string") continue;
    takesValue.set(`--${name}`, name);
    if (option.short) takesValue.set(`-${option.short}`, name);
  }
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      joined.push(...argv.slice(i));
      break;
    }
    const name = takesValue.get(arg);
    const value = argv[i + 1];
    if (name !== undefined && value !== undefined) {
      joined.push(`--${name}=${value}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/** `parseArgs` over {@link joinedValues}: one parser for every command of `formwork`. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ParsedResults<T> {
  return parseArgs({ ...config, args: joinedValues(config.args ?? [], config.options) } as T);
}

type ParsedResults<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

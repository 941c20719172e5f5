/**
 * Putting values into the page's words (page-words.ts), on the server and in the browser.
 * Hand-written rather than a message-format library: the page needs only named values and
 * one/other counts, and every byte of the script counts (docs/design.md §21).
 */
import type { Counted } from "./page-words.ts";

/** `text` with each `{name}` replaced by `values[name]`; inserted values are not read again. */
export function fill(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/** The text of `words` for `count` in `language`, with `{count}` and `values` filled in. */
export function counted(
  words: Counted,
  count: number,
  language: string,
  values: Record<string, string | number> = {},
): string {
  const one = new Intl.PluralRules(language).select(count) === "one";
  return fill(one ? words.one : words.other, { ...values, count });
}

/**
 * Mustache rendering with a byte budget (docs/design.md §11): the output is built token by
 * token and given up as soon as it would pass the budget, so that a short template that names
 * a large value many times costs about the budget, never the template's size times the
 * value's. Same output as `Mustache.render` for the views the service renders: plain records
 * of strings, no partials, no lambdas.
 */
import Mustache from "mustache";

/** A parsed Mustache token: `[kind, name or text, start, end, children of a section, …]`. */
type Token = [string, string, number, number, Token[]?, ...unknown[]];

/**
 * `template` rendered over `view`, or `null` as soon as its UTF-8 output would pass
 * `maxBytes`. A template Mustache cannot parse throws, as `Mustache.render` does. `{{name}}`
 * is HTML-escaped as Mustache does, unless `escape` is false (a text no HTML reader shows,
 * such as a payment's description: docs/design.md §26).
 */
export function renderWithin(
  template: string,
  view: Record<string, string>,
  maxBytes: number,
  { escape: escaping = true }: { escape?: boolean } = {},
): string | null {
  // A writer per call: Mustache's shared writer caches every template it has seen.
  const tokens = new Mustache.Writer().parse(template) as Token[];
  const output: string[] = [];
  let left = maxBytes;
  /** Appends `text` unless it would pass the budget. @returns whether it fitted. */
  const add = (text: string) => {
    // A UTF-16 code unit is at least one byte of UTF-8: the count below is needed only when
    // the length alone does not already pass the budget.
    if (text.length > left) return false;
    const bytes = utf8Length(text);
    if (bytes > left) return false;
    left -= bytes;
    output.push(text);
    return true;
  };
  const walk = (list: Token[], context: Mustache.Context): boolean => {
    for (const [kind, name, , , children = []] of list) {
      if (kind === "text" && !add(name)) return false;
      if (kind === "name" || kind === "&") {
        const found = context.lookup(name);
        if (found == null) continue;
        const text = typeof found === "string" ? found : String(found);
        // Escaping never shortens: a raw value past the budget is past it escaped too.
        if (text.length > left) return false;
        if (!add(kind === "name" && escaping ? Mustache.escape(text) : text)) return false;
      }
      if (kind === "#" && !section(children, context, context.lookup(name))) return false;
      if (kind === "^") {
        const found = context.lookup(name);
        const empty = !found || (Array.isArray(found) && found.length === 0);
        if (empty && !walk(children, context)) return false;
      }
    }
    return true;
  };
  /** A section as Mustache renders it: once per item of a list, once for another truthy value. */
  const section = (children: Token[], context: Mustache.Context, found: unknown): boolean => {
    if (!found) return true;
    if (Array.isArray(found)) return found.every((item) => walk(children, context.push(item)));
    const scoped =
      typeof found === "object" || typeof found === "string" || typeof found === "number";
    return walk(children, scoped ? context.push(found) : context);
  };
  return walk(tokens, new Mustache.Context(view)) ? output.join("") : null;
}

/** How many bytes `text` takes in UTF-8, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * What a JsonLogic expression of the settings reads from the submitted values (docs/design.md
 * §11): the operators that read a value by its name (`var`, `val`, `exists`, `missing`,
 * `missing_some`) must write the name out, so that F2 knows every field an expression reads.
 * A name built while the expression runs (`{"var": {"cat": ["gpi", "_7"]}}`), all the values
 * at once (`{"var": ""}`, which `get` could then index by a built name) or a climb out of an
 * iterator (`../`) hides what it reads, and is refused.
 */

/** The fields an expression reads, and the reads that do not name theirs. */
export interface ExpressionReads {
  /** The fields it reads, by name (for `var` and `missing`, a dotted path's first part). */
  fields: Set<string>;
  /**
   * Each read that does not write its name out: its operator, and the path of the node it
   * sits in (`var in +.1`).
   */
  unnamed: string[];
}

type Name = string | number;

/** A name written out: a string or a finite number. */
function isName(value: unknown): value is Name {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** The field a `var` or `missing` path reads, or `null` when it names none plainly. */
function pathField(path: Name): string | null {
  const text = String(path);
  if (text.startsWith("../")) return null;
  const first = text.split(".")[0] ?? "";
  return first === "" ? null : first;
}

/**
 * What each reading operator reads, given its argument: the fields it names (`null` when
 * it does not write them all out) and the parts of the argument that are expressions.
 */
const readers: Record<string, (arg: unknown) => { fields: (string | null)[]; more: unknown[] }> = {
  var(arg) {
    const [path, ...more] = Array.isArray(arg) ? arg : [arg];
    return { fields: [isName(path) ? pathField(path) : null], more };
  },
  val: valueReads,
  exists: valueReads,
  missing(arg) {
    const paths = Array.isArray(arg) ? arg : [arg];
    return { fields: paths.map((p) => (isName(p) ? pathField(p) : null)), more: [] };
  },
  missing_some(arg) {
    if (!Array.isArray(arg) || !Array.isArray(arg[1])) return { fields: [null], more: [] };
    const paths: unknown[] = arg[1];
    return {
      fields: paths.map((p) => (isName(p) ? pathField(p) : null)),
      more: [arg[0], ...arg.slice(2)],
    };
  },
};

/** `val` and `exists`: a key, or a path of keys (no dots), never a scope climb `[[n], …]`. */
function valueReads(arg: unknown) {
  const path = Array.isArray(arg) ? arg : [arg];
  const named = path.length > 0 && path.every(isName) && String(path[0]) !== "";
  return { fields: [named ? String(path[0]) : null], more: [] };
}

/** What `expression` reads (see {@link ExpressionReads}). */
export function readsOf(expression: unknown): ExpressionReads {
  const reads: ExpressionReads = { fields: new Set(), unnamed: [] };
  const stack: { node: unknown; at: string }[] = [{ node: expression, at: "" }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { node, at } = next;
    if (typeof node !== "object" || node === null) continue;
    const entries = Object.entries(node);
    const [operator, arg] = entries[0] ?? [];
    const where = (key: string) => (at ? `${at}.${key}` : key);
    const reader = !Array.isArray(node) && entries.length === 1 ? readers[operator ?? ""] : null;
    if (reader && operator) {
      const { fields, more } = reader(arg);
      for (const field of fields) {
        if (field === null) reads.unnamed.push(at ? `${operator} in ${at}` : operator);
        else reads.fields.add(field);
      }
      for (const part of more) stack.push({ node: part, at: where(operator) });
      continue;
    }
    // `preserve` holds data, never read as an expression.
    if (operator === "preserve" && entries.length === 1) continue;
    for (const [key, value] of entries) stack.push({ node: value, at: where(key) });
  }
  return reads;
}

/**
 * A deep copy of a record for a caller of `get` or `query`, which may change it (the `Store`
 * port's ownership rule, store.ts). Records are JSON data, so plain objects and arrays are
 * copied by hand: for the small records of the request path that costs a fraction of a
 * `structuredClone` (hot path). Anything else a record might hold goes to `structuredClone`.
 */
export function copyRecord<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyRecord(value[i]);
    return copy as T;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = copyRecord((value as Record<string, unknown>)[key]);
    // A key "__proto__" (JSON.parse makes it an own field) must stay a field.
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = field;
  }
  return copy as T;
}

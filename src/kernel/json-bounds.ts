/**
 * Bounds on the free-form JSON the service keeps (docs/design.md §8): settings sections and form
 * definitions nest at most 32 levels, a section holds at most 64 KB and a definition 1 MB.
 * Every check here walks the value with its own stack, never the call stack, so that a value
 * of any depth is measured without overflowing it.
 */
import type { ValidationIssue } from "./errors.ts";

/** The bounds of docs/design.md §8. */
export const jsonBounds = {
  /** Nesting depth of a kept section or definition: `{}` is 1, `{"a":{}}` is 2. */
  depth: 32,
  /** A settings section, as JSON text in UTF-8. */
  sectionBytes: 64 * 1024,
  /** A form definition, as JSON text in UTF-8. */
  definitionBytes: 1_000_000,
  /** Any request body: a wrapper or two around a kept value, and never more. */
  requestDepth: 64,
} as const;

/** Whether `value` nests objects and arrays more than `limit` levels deep. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * The issues of a value the service is asked to keep: deeper than {@link jsonBounds}.depth
 * or larger than `maxBytes`, reported at `path`. Empty when it is within both.
 */
export function boundIssues(value: unknown, maxBytes: number, path = ""): ValidationIssue[] {
  if (nestsDeeperThan(value, jsonBounds.depth)) {
    return [{ path, message: `must not nest deeper than ${jsonBounds.depth} levels` }];
  }
  // Safe to stringify now: the depth is bounded.
  const bytes = new TextEncoder().encode(JSON.stringify(value) ?? "").byteLength;
  if (bytes > maxBytes) return [{ path, message: `must be at most ${maxBytes} bytes of JSON` }];
  return [];
}

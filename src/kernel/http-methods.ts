/** The methods HTTP semantic conventions name; any other is `_OTHER`. */
const knownMethods = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/**
 * The method as spans and metrics name it: one of the known methods, or `_OTHER`, so that a
 * client cannot make up label values (docs/design.md §10).
 */
export function methodName(method: string): string {
  return knownMethods.has(method) ? method : "_OTHER";
}

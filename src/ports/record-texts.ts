const ID_OPENING = '{"id":"';

/**
 * The `id` of a record read from its JSON text, without parsing the text: when `json` is
 * what `JSON.stringify` writes of a record whose first field is its id, a string without
 * escapes (`JSON.stringify` writes each key once, and such a string is its own text).
 * `undefined` otherwise. A slice of `json`: copy it before keeping it longer than the text.
 */
export function leadingId(json: string): string | undefined {
  if (!json.startsWith(ID_OPENING)) return undefined;
  const end = json.indexOf('"', ID_OPENING.length);
  const id = end < 0 ? undefined : json.slice(ID_OPENING.length, end);
  return id?.includes("\\") ? undefined : id;
}

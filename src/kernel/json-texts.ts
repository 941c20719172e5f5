/**
 * Answers whose records are written from the JSON text the store already held
 * (docs/design.md §18, "Range reads"): an S5 page of 100 submissions is about 46 KB of JSON,
 * and writing it again from the parsed records cost about a tenth of the page's CPU, while
 * the store read each record as the very text `JSON.stringify` would write.
 */

/** Where an answer keeps the texts noted for its arrays: a field JSON never writes. */
const noted = Symbol("formwork.jsonTexts");

type Texts = Record<string, readonly (string | undefined)[]>;
type Noted = { [noted]?: Texts };

/**
 * Notes, for arrays among `answer`'s own fields, the JSON text of each of their items
 * (`undefined` where none is known), so that {@link answerJson} copies the texts instead of
 * writing those items again. The items must stay as they are, and each text must be exactly
 * what `JSON.stringify` writes for its item. @returns `answer`
 */
export function withJsonTexts<A extends object>(
  answer: A,
  texts: { [K in keyof A]?: readonly (string | undefined)[] },
): A {
  Object.defineProperty(answer, noted, { value: texts });
  return answer;
}

/**
 * `JSON.stringify(answer)`, the same text, copying the texts {@link withJsonTexts} noted.
 * An array whose length no longer matches its texts is written as usual.
 */
export function answerJson(answer: unknown): string {
  const texts = (answer as Noted | null)?.[noted];
  if (!texts) return JSON.stringify(answer);
  const fields = answer as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    const known = texts[key];
    const text =
      known && Array.isArray(value) && known.length === value.length
        ? arrayJson(value, known)
        : JSON.stringify(value);
    // As `JSON.stringify` leaves out a field it cannot write (undefined, a function).
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

function arrayJson(items: readonly unknown[], known: readonly (string | undefined)[]): string {
  const parts: string[] = [];
  for (let index = 0; index < items.length; index++) {
    parts.push(known[index] ?? JSON.stringify(items[index]) ?? "null");
  }
  return `[${parts.join(",")}]`;
}

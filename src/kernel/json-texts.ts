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
 * {@link withJsonTexts}, with `answer[key]` built by `build` only when read (then kept as a
 * plain field): an accessor that `Object.keys`, spread, `JSON.stringify` and comparisons
 * read as ever, while {@link answerJson} writes it from `texts` without building it when
 * every item's text is known. For an array whose items cost more to build than to write
 * from their texts: S5's records, parsed only when read (docs/design.md §18).
 */
export function withLazyJsonArray<A extends object, K extends keyof A & string>(
  answer: A,
  key: K,
  texts: readonly (string | undefined)[],
  build: () => A[K],
): A {
  if (!Object.hasOwn(answer, builders)) Object.defineProperty(answer, builders, { value: {} });
  ((answer as Lazy)[builders] as Record<string, () => unknown>)[key] = build;
  Object.defineProperty(answer, key, accessorOf(key));
  return withJsonTexts(answer, { [key]: texts } as {
    [P in keyof A]?: readonly (string | undefined)[];
  });
}

/** Where an answer keeps the builds of its fields not built yet: a field JSON never writes. */
const builders = Symbol("formwork.lazyFields");

type Lazy = { [builders]?: Record<string, () => unknown> };

/**
 * The accessor of a field built on first read, one per field name for every answer: an
 * accessor of functions made for one object gives V8 a hidden class for that object alone,
 * whose getter keeps the object's young data alive past collections of the young
 * generation until the next full one (S5's page lines: 4 times the time in collections).
 */
function accessorOf(key: string): PropertyDescriptor {
  let accessor = accessors.get(key);
  if (!accessor) {
    accessor = {
      get(this: Lazy) {
        const build = this[builders]?.[key] as () => unknown;
        return settle(this, key, build());
      },
      set(this: Lazy, value: unknown) {
        settle(this, key, value);
      },
      enumerable: true,
      configurable: true,
    };
    accessors.set(key, accessor);
  }
  return accessor;
}

const accessors = new Map<string, PropertyDescriptor>();

function settle(answer: Lazy, key: string, value: unknown): unknown {
  Object.defineProperty(answer, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  delete answer[builders]?.[key];
  return value;
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
    const known = texts[key];
    if (known && unbuilt(fields, key) && known.every((text) => text !== undefined)) {
      parts.push(`${JSON.stringify(key)}:[${known.join(",")}]`);
      continue;
    }
    const value = fields[key];
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

/** Whether `fields[key]` is still the accessor of {@link withLazyJsonArray}, not built. */
function unbuilt(fields: object, key: string): boolean {
  return Object.getOwnPropertyDescriptor(fields, key)?.get !== undefined;
}

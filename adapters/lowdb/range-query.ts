import type { Query, Scalar, Stored, StoreRecord } from "formwork/ports";
import { compareValues, decodeCursor, evaluateQuery } from "formwork/ports/kit";
import type { Manifest, ManifestEntry } from "./manifest.ts";
import type { PartitionView } from "./partition-view.ts";
import type { Entry, SegmentSnapshot } from "./snapshot-format.ts";

// Stand-ins for "below everything" and "above everything" where a bound is unknown.
const LOWEST = Symbol("lowest");
const HIGHEST = Symbol("highest");
type Edge = unknown;

/** One segment as a query sees it before reading it: the range of its order values. */
interface Span {
  index: number;
  min: Edge;
  max: Edge;
}

/**
 * One page of `query` over a partition, reading only the segments that can hold it. Each
 * segment's range of order values comes from memory when it is loaded, else from the
 * manifest (bounds noted when its file was written, or its id range when ordering by id).
 * Segments outside the window (range conditions and the continuation) are skipped; the
 * others are read in order of their lowest value (highest, descending) until the page and
 * one record more are found and no segment left can hold anything before them. The page
 * itself comes from `evaluateQuery` over what was read, so it means exactly what the
 * reference does.
 * @throws {StoreContinuationError} for a continuation token it did not issue
 */
export async function readPage<T extends StoreRecord>(
  view: PartitionView,
  query: Query = {},
): Promise<{ items: PageItem<T>[]; continuation: string | null }> {
  const field = query.orderBy?.field ?? "id";
  const descending = query.orderBy?.direction === "desc";
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  // With conditions on the order field alone, a line's id and order value are all the page
  // needs of it: its record is parsed only when read (`ReadFromFile`).
  const keyed = (query.where ?? []).every((condition) => condition.field === field);
  const manifest = await view.manifest();
  const [low, high] = windowOf(query, field, descending);
  const spans = spansOf(view, manifest, field, [low, high]);
  spans.sort((a, b) => (descending ? compareEdges(b.max, a.max) : compareEdges(a.min, b.min)));
  const probe: Query = { ...query, limit: limit + 1 };
  let found: Found[] = [];
  for (const span of spans) {
    const last = found.length > limit ? (found[found.length - 1] as Found) : undefined;
    if (last) {
      const value = orderValue(last.record, field);
      if (descending ? compareEdges(span.max, value) < 0 : compareEdges(span.min, value) > 0) {
        break;
      }
    }
    const loaded = view.loadedAt(manifest, span.index);
    if (loaded) {
      view.remember(loaded);
      found = withAll(found, loaded.records.values(), probe);
      continue;
    }
    // Not loaded: its file is the truth. Read it without loading it (see `SegmentSnapshot`),
    // and use it before anything is awaited: its bytes are good until the next read.
    const snapshot = view.snapshotAt(manifest, span.index);
    if (snapshot.legacy) {
      const segment = await view.upgrade(manifest, span.index, snapshot);
      found = withAll(found, segment.records.values(), probe);
      continue;
    }
    try {
      const candidates = snapshot.candidates(
        field,
        (value) => compareEdges(value, low) >= 0 && compareEdges(value, high) <= 0,
        descending,
      );
      found = candidates
        ? readLines(snapshot, candidates, found, probe, { field, descending, keyed })
        : withAll(found, fromFile(snapshot.entries().values()), probe);
    } finally {
      snapshot.close();
    }
  }
  const page = pageOf(found, query);
  return {
    items: page.items.map(({ item }) => item as PageItem<T>),
    continuation: page.continuation,
  };
}

/** An item of a page: an entry of a loaded segment (to copy), or one read from a file. */
export type PageItem<T extends StoreRecord> = Entry | ReadFromFile<T>;

/**
 * A record a page found, as its order and conditions see it: the record itself, or only
 * its id and order value (`keyed`), which give the same page and continuation when the
 * conditions are on the order field alone. `item` is what the page answers.
 */
class Found implements Stored<StoreRecord> {
  readonly record: StoreRecord;
  readonly etag = "";
  readonly item: PageItem<StoreRecord>;

  constructor(record: StoreRecord, item: PageItem<StoreRecord>) {
    this.record = record;
    this.item = item;
  }
}

/**
 * An entry a page read from a segment file that is not loaded: no one else holds its
 * record, so the store hands it out as it is instead of copying it. A class rather than a
 * mark kept aside: telling it apart is a map check, where a `WeakSet` entry per record cost
 * as much as a tenth of a page. A line read unparsed (`SegmentSnapshot.textAt`) has no
 * record yet, only its text `json`: the store hands it out to be parsed on first read.
 */
export class ReadFromFile<T extends StoreRecord = StoreRecord> {
  readonly etag: string;
  /** The record's JSON text as its line holds it, when read line by line. */
  readonly json: string | undefined;
  /** The record, parsed; `undefined` for a line read unparsed (then `json` is its text). */
  readonly record: T | undefined;

  constructor(etag: string, json: string | undefined, record: T | undefined) {
    this.etag = etag;
    this.json = json;
    this.record = record;
  }
}

function* fromFile(entries: Iterable<Entry>): Iterable<ReadFromFile> {
  for (const entry of entries) yield new ReadFromFile(entry.etag, undefined, entry.record);
}

/** The first records of the probe among `found` and every entry of a segment. */
function withAll(found: Found[], entries: Iterable<Entry | ReadFromFile>, probe: Query): Found[] {
  for (const entry of entries) found.push(new Found(entry.record as StoreRecord, entry));
  return pageOf(found, probe).items;
}

/** `evaluateQuery` over what a page found (it hands back the entries it was given). */
function pageOf(found: Found[], query: Query): { items: Found[]; continuation: string | null } {
  return evaluateQuery(found, query) as { items: Found[]; continuation: string | null };
}

/**
 * Adds to `found` the records of a segment file's candidate lines (sorted by the order
 * value), reading them a page's worth at a time, until the page and one record more are
 * found and the next line's value comes after the last of them. `keyed`: a line is found by
 * its id and order value, and its record left unparsed where its layout allows.
 */
function readLines(
  snapshot: SegmentSnapshot,
  candidates: { line: number; value: Scalar }[],
  found: Found[],
  probe: Query,
  { field, descending, keyed }: { field: string; descending: boolean; keyed: boolean },
): Found[] {
  const want = probe.limit as number;
  let next = 0;
  while (next < candidates.length) {
    const last = found.length >= want ? (found[found.length - 1] as Found) : undefined;
    if (last) {
      const value = orderValue(last.record, field);
      const after = compareEdges((candidates[next] as { value: Edge }).value, value);
      if (descending ? after < 0 : after > 0) break;
    }
    const end = Math.min(candidates.length, next + Math.max(16, want - found.length));
    // The lines' blocks in one read (a window's lines are mostly one run: ids follow time).
    let lowest = Number.POSITIVE_INFINITY;
    let highest = -1;
    for (let at = next; at < end; at++) {
      const { line } = candidates[at] as { line: number };
      if (line < lowest) lowest = line;
      if (line > highest) highest = line;
    }
    snapshot.need(lowest, highest + 1);
    for (; next < end; next++) {
      const { line, value } = candidates[next] as { line: number; value: Scalar };
      const text = keyed ? snapshot.textAt(line) : null;
      if (text) {
        const item = new ReadFromFile(text.etag, text.json, undefined);
        found.push(new Found(keyOf(text.id, field, value), item));
        continue;
      }
      // Outside the segment's range: a copy a crashed split left.
      if (text === undefined) continue;
      const read = snapshot.lineAt(line);
      if (read) {
        const { record, etag } = read.entry;
        found.push(new Found(record, new ReadFromFile(etag, read.json, record)));
      }
    }
    // Fewer than the probe wants, filtered or not: nothing is decided by their order yet
    // (the caller and the final `evaluateQuery` filter them), so they need no sort now.
    if (found.length >= want) found = pageOf(found, probe).items;
  }
  return found;
}

/** What the order and the conditions on `field` see of a record: its id and that value. */
function keyOf(id: string, field: string, value: Scalar): StoreRecord {
  return field === "id" ? { id } : ({ id, [field]: value } as StoreRecord);
}

/** The range of the order field a page can come from: range conditions and continuation. */
function windowOf(query: Query, field: string, descending: boolean): [Edge, Edge] {
  let low: Edge = LOWEST;
  let high: Edge = HIGHEST;
  const raise = (value: Edge) => {
    if (compareEdges(value, low) > 0) low = value;
  };
  const lower = (value: Edge) => {
    if (compareEdges(value, high) < 0) high = value;
  };
  for (const condition of query.where ?? []) {
    if (condition.field !== field) continue;
    if (condition.op === "gt" || condition.op === "gte" || condition.op === "eq") {
      raise(condition.value);
    }
    if (condition.op === "lt" || condition.op === "lte" || condition.op === "eq") {
      lower(condition.value);
    }
  }
  if (query.continuation) {
    const after = orderValue(decodeCursor(query.continuation, field), field);
    if (descending) lower(after);
    else raise(after);
  }
  return [low, high];
}

/** The segments whose range of `field` meets the window `[low, high]`, in manifest order. */
function spansOf(
  view: PartitionView,
  manifest: Manifest,
  field: string,
  [low, high]: [Edge, Edge],
): Span[] {
  const spans: Span[] = [];
  const entries = manifest.entries;
  const anyLoaded = view.loadedCount > 0;
  // A plain loop keeping only the spans in the window: a page of a large partition looks at
  // every segment's bounds, hundreds of them.
  for (let index = 0; index < entries.length; index++) {
    let min: Edge = LOWEST;
    let max: Edge = HIGHEST;
    if (field === "id") {
      min = (entries[index] as ManifestEntry).low;
      max = entries[index + 1]?.low ?? HIGHEST;
    } else {
      const loaded = anyLoaded ? view.loadedAt(manifest, index) : undefined;
      const bounds = loaded ? loaded.boundsOf(field) : entries[index]?.bounds?.[field];
      // `null` or `undefined` from a loaded segment: it is empty.
      if (!bounds && (loaded || bounds === null)) continue;
      if (bounds) [min, max] = bounds;
    }
    if (compareEdges(max, low) >= 0 && compareEdges(min, high) <= 0)
      spans.push({ index, min, max });
  }
  return spans;
}

function orderValue(record: StoreRecord, field: string): Edge {
  const value = (record as unknown as Record<string, unknown>)[field];
  return value === undefined ? null : value;
}

function compareEdges(a: Edge, b: Edge): number {
  // Most order values are strings (ISO times): compared as `compareValues` would, sooner.
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (a === b) return 0;
  if (a === LOWEST || b === HIGHEST) return -1;
  if (a === HIGHEST || b === LOWEST) return 1;
  return compareValues(a, b);
}

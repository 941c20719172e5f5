import type { Page, Query, Stored, StoreRecord } from "formwork/ports";
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
): Promise<Page<T>> {
  const field = query.orderBy?.field ?? "id";
  const descending = query.orderBy?.direction === "desc";
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  const manifest = await view.manifest();
  const [low, high] = windowOf(query, field, descending);
  const spans = spansOf(view, manifest, field, [low, high]);
  spans.sort((a, b) => (descending ? compareEdges(b.max, a.max) : compareEdges(a.min, b.min)));
  const probe: Query = { ...query, limit: limit + 1 };
  let found: Stored<T>[] = [];
  for (const span of spans) {
    const last = found.length > limit ? (found[found.length - 1] as Stored<T>) : undefined;
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
    const candidates = snapshot.candidates(
      field,
      (value) => compareEdges(value, low) >= 0 && compareEdges(value, high) <= 0,
      descending,
    );
    found = candidates
      ? readLines(snapshot, candidates, found, probe, field, descending)
      : withAll(found, fromFile(snapshot.entries().values()), probe);
  }
  return evaluateQuery(found, query);
}

/**
 * An entry a page parsed from a segment file that is not loaded: no one else holds its
 * record, so the store hands it out as it is instead of copying it. A class rather than a
 * mark kept aside: telling it apart is a map check, where a `WeakSet` entry per record cost
 * as much as a tenth of a page.
 */
export class ReadFromFile<T extends StoreRecord = StoreRecord> implements Stored<T> {
  readonly record: T;
  readonly etag: string;
  /** The record's JSON text as its line holds it, when read line by line (`lineAt`). */
  readonly json: string | undefined;

  constructor(entry: Entry, json?: string) {
    this.record = entry.record as T;
    this.etag = entry.etag;
    this.json = json;
  }
}

function* fromFile(entries: Iterable<Entry>): Iterable<Entry> {
  for (const entry of entries) yield new ReadFromFile(entry);
}

/** The first records of the probe among `found` and every entry of a segment. */
function withAll<T extends StoreRecord>(
  found: Stored<T>[],
  entries: Iterable<Entry>,
  probe: Query,
): Stored<T>[] {
  for (const entry of entries) found.push(entry as Stored<T>);
  return evaluateQuery(found, probe).items;
}

/**
 * Adds to `found` the records of a segment file's candidate lines (sorted by the order
 * value), parsing them a page's worth at a time, until the page and one record more are
 * found and the next line's value comes after the last of them.
 */
function readLines<T extends StoreRecord>(
  snapshot: SegmentSnapshot,
  candidates: { line: number; value: Edge }[],
  found: Stored<T>[],
  probe: Query,
  field: string,
  descending: boolean,
): Stored<T>[] {
  const want = probe.limit as number;
  let next = 0;
  while (next < candidates.length) {
    const last = found.length >= want ? (found[found.length - 1] as Stored<T>) : undefined;
    if (last) {
      const value = orderValue(last.record, field);
      const after = compareEdges((candidates[next] as { value: Edge }).value, value);
      if (descending ? after < 0 : after > 0) break;
    }
    const end = Math.min(candidates.length, next + Math.max(16, want - found.length));
    for (; next < end; next++) {
      const read = snapshot.lineAt((candidates[next] as { line: number }).line);
      if (read) found.push(new ReadFromFile<T>(read.entry, read.json));
    }
    // Fewer than the probe wants, filtered or not: nothing is decided by their order yet
    // (the caller and the final `evaluateQuery` filter them), so they need no sort now.
    if (found.length >= want) found = evaluateQuery(found, probe).items;
  }
  return found;
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

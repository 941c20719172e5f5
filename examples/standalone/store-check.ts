/**
 * The counters of a stopped standalone store checked against their records, through the
 * Store port (docs/design.md §12 and §15): what `npm run admin -- verify` and `repair` add
 * to the lowdb files' own checks. Checked, for every form whose record exists:
 *
 * - `form_counters/<form>`: `counts.submissions` equals the form's submission records
 *   (drafts included: S2 counts every one, S7 gives one back);
 * - `counts.unclaimed_bytes` equals the `file_size` of its attachment records that no
 *   submission holds (`submission_id` null, upload holds included);
 * - for a partner customer (`partner_<id>|…`), `customer_counters/<user>/total_file_storage`
 *   `used` equals the `file_size` of the attachment records of its forms, holds included;
 * - and `monthly_form_submissions:<YYYY-MM>` `used` is at least the submissions of its forms
 *   created that month (UTC): S7 gives nothing back, so deleted ones still count.
 *
 * Inventory counts and the per-address unclaimed counts are not checked.
 */
import { listLowdbPartitions } from "formwork/adapters/lowdb";
import type { Page, Store, Stored, StoreRecord } from "formwork/ports";

/** The collections read, as src/domain/records/collections.ts names them. */
const forms = "forms";
const submissions = "submissions";
const attachments = "attachments";
const formCounters = "form_counters";
const customerCounters = "customer_counters";

/** A counter that disagrees with its records, and the write that sets it right. */
export interface CounterFault {
  /** `<collection>/<partition>/<id>` of the counter record. */
  counter: string;
  problem: string;
  /** Writes the counts the records imply, on the etag read. */
  fix(): Promise<void>;
}

interface Counter {
  id: string;
  counts: Record<string, number>;
}

interface Attachment extends StoreRecord {
  id: string;
  file_size: number;
  submission_id: string | null;
}

/** Checks every counter listed above in a store opened on `directory` (the lowdb folder). */
export async function checkCounters(store: Store, directory: string): Promise<CounterFault[]> {
  const faults: CounterFault[] = [];
  const owners = new Map<string, { bytes: number; months: Map<string, number> }>();
  for (const formId of await listLowdbPartitions(directory, forms)) {
    const form = await store.get<{ id: string; owner_user_id: string }>(forms, formId, formId);
    if (!form) continue;
    const months = new Map<string, number>();
    let count = 0;
    await eachRecord<{ id: string; created_date_utc: string }>(store, submissions, formId, (s) => {
      count++;
      const month = s.created_date_utc.slice(0, 7);
      months.set(month, (months.get(month) ?? 0) + 1);
    });
    let bytes = 0;
    let unclaimed = 0;
    await eachRecord<Attachment>(store, attachments, formId, (file) => {
      bytes += file.file_size;
      if (file.submission_id === null) unclaimed += file.file_size;
    });
    const place = { collection: formCounters, partition: formId, id: formId };
    const wanted = { submissions: count, unclaimed_bytes: unclaimed };
    faults.push(...(await compare(store, place, wanted, (has, want) => has !== want)));
    const owner = form.record.owner_user_id;
    if (!/^partner_[^|]+\|/.test(owner)) continue;
    const usage = owners.get(owner) ?? { bytes: 0, months: new Map() };
    owners.set(owner, usage);
    usage.bytes += bytes;
    for (const [month, n] of months) usage.months.set(month, (usage.months.get(month) ?? 0) + n);
  }
  for (const [owner, usage] of owners) {
    const storage = { collection: customerCounters, partition: owner, id: "total_file_storage" };
    faults.push(
      ...(await compare(store, storage, { used: usage.bytes }, (has, want) => has !== want)),
    );
    for (const [month, count] of usage.months) {
      const monthly = { ...storage, id: `monthly_form_submissions:${month}` };
      faults.push(...(await compare(store, monthly, { used: count }, (has, want) => has < want)));
    }
  }
  return faults;
}

/** The faults of one counter record: counts for which `wrong(has, want)` holds. */
async function compare(
  store: Store,
  place: { collection: string; partition: string; id: string },
  wanted: Record<string, number>,
  wrong: (has: number, want: number) => boolean,
): Promise<CounterFault[]> {
  const stored = await store.get<Counter>(place.collection, place.partition, place.id);
  const counts = stored?.record.counts ?? {};
  const off = Object.entries(wanted).filter(([name, want]) => wrong(counts[name] ?? 0, want));
  if (off.length === 0) return [];
  const counter = `${place.collection}/${place.partition}/${place.id}`;
  const problem = off
    .map(([name, want]) => `counts.${name} is ${counts[name] ?? 0}, its records make ${want}`)
    .join("; ");
  return [{ counter, problem, fix: () => write(store, place, stored, Object.fromEntries(off)) }];
}

async function write(
  store: Store,
  place: { collection: string; partition: string; id: string },
  stored: Stored<Counter> | null,
  counts: Record<string, number>,
) {
  if (!stored) {
    await store.create<Counter>(place.collection, place.partition, { id: place.id, counts });
    return;
  }
  const record = { ...stored.record, counts: { ...stored.record.counts, ...counts } };
  await store.replace<Counter>(place.collection, place.partition, record, {
    ifMatch: stored.etag,
  });
}

/** Calls `visit` with every record of a partition, a page at a time (none kept). */
async function eachRecord<T extends StoreRecord>(
  store: Store,
  collection: string,
  partition: string,
  visit: (record: T) => void,
): Promise<void> {
  let continuation: string | null = null;
  do {
    const page: Page<T> = await store.query<T>(collection, partition, {
      limit: 1000,
      continuation,
    });
    for (const { record } of page.items) visit(record);
    continuation = page.continuation;
  } while (continuation);
}

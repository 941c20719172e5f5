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
import type { Store, Stored, StoreRecord } from "formwork/ports";
import { scanAll } from "formwork/ports/kit";

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

/** What one form's records make of its counts, tallied by one scan of the store. */
interface FormTally {
  owner: string | undefined;
  submissions: number;
  /** Submissions per month of creation (`YYYY-MM`, UTC). */
  months: Map<string, number>;
  bytes: number;
  unclaimed: number;
}

/** Checks every counter listed above in `store`, reading it whole once (`Store.scan`). */
export async function checkCounters(store: Store): Promise<CounterFault[]> {
  const tallies = new Map<string, FormTally>();
  const tallyOf = (formId: string) => {
    let tally = tallies.get(formId);
    if (!tally) {
      tally = { owner: undefined, submissions: 0, months: new Map(), bytes: 0, unclaimed: 0 };
      tallies.set(formId, tally);
    }
    return tally;
  };
  await scanAll(store, ({ collection, partition, record }) => {
    const fields = record as StoreRecord & Record<string, unknown>;
    if (collection === forms) tallyOf(partition).owner = String(fields.owner_user_id);
    else if (collection === submissions) {
      const tally = tallyOf(partition);
      tally.submissions++;
      const month = String(fields.created_date_utc).slice(0, 7);
      tally.months.set(month, (tally.months.get(month) ?? 0) + 1);
    } else if (collection === attachments) {
      const tally = tallyOf(partition);
      const size = Number(fields.file_size);
      tally.bytes += size;
      if (fields.submission_id === null) tally.unclaimed += size;
    }
  });
  const faults: CounterFault[] = [];
  const owners = new Map<string, { bytes: number; months: Map<string, number> }>();
  for (const [formId, tally] of tallies) {
    // Records of a form whose record is gone: a deletion the sweep is finishing.
    if (tally.owner === undefined) continue;
    const place = { collection: formCounters, partition: formId, id: formId };
    const wanted = { submissions: tally.submissions, unclaimed_bytes: tally.unclaimed };
    faults.push(...(await compare(store, place, wanted, (has, want) => has !== want)));
    if (!/^partner_[^|]+\|/.test(tally.owner)) continue;
    const usage = owners.get(tally.owner) ?? { bytes: 0, months: new Map() };
    owners.set(tally.owner, usage);
    usage.bytes += tally.bytes;
    for (const [month, n] of tally.months) {
      usage.months.set(month, (usage.months.get(month) ?? 0) + n);
    }
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

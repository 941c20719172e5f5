/**
 * `npm run admin -- verify` and `repair`: offline checks of the standalone server's store,
 * on its stopped `DATA_DIR` (the records in `$DATA_DIR/records`). They hold the store's lock,
 * so a running server is refused. Modelled on `pg_amcheck` and sqlite's `.recover`: one line
 * per finding naming the file and where in it, then a summary line. The counters are
 * checked on the store opened as the server opens it (its journal replayed, and compacted
 * when it closes), once the files passed their own checks.
 */
import {
  createLowdbStore,
  repairLowdbStore,
  type StoreReport,
  verifyLowdbStore,
} from "formwork/adapters/lowdb";
import { adminProgram } from "./admin-commands.ts";
import { readConfig } from "./config.ts";
import { recordsFolder, refusalOf } from "./data-store.ts";
import { type CounterFault, checkCounters } from "./store-check.ts";

const help = `usage: ${adminProgram.name} verify | repair

Run on a stopped server's DATA_DIR (the records in DATA_DIR/records).
verify  checks every journal entry's checksum, every manifest's and segment file's checksum
        and lines, and that the counters equal their records; prints one line per fault
        (file and byte or line), then a summary. Exit 0 clean, 1 on any fault.
repair  keeps each damaged journal up to its first bad entry, moves damaged files to
        DATA_DIR/records/.damaged-<time>/ (never deletes), rebuilds damaged manifests,
        recomputes counters from their records, and prints what was dropped.`;

/** Runs `verify` or `repair` with the rest of the arguments. @returns the exit code */
export async function runMaintenance(name: "verify" | "repair", rest: string[]): Promise<number> {
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(help);
    return 0;
  }
  if (rest.length > 0) {
    console.error(`admin: unexpected ${rest[0]}\n\n${help}`);
    return 2;
  }
  const { dataDir } = readConfig(process.env);
  const directory = recordsFolder(dataDir);
  try {
    return name === "verify" ? await verify(directory) : await repair(directory);
  } catch (error) {
    console.error(refusalOf(error, dataDir));
    return 1;
  }
}

async function verify(directory: string): Promise<number> {
  const report = await verifyLowdbStore(directory);
  for (const fault of report.faults) console.log(line("fault", fault));
  for (const note of report.notes) console.log(line("note", note));
  let counters: CounterFault[] = [];
  if (report.faults.length === 0) {
    counters = await withStore(directory, checkCounters);
    for (const { counter, problem } of counters) console.log(`fault: ${counter}: ${problem}`);
  } else console.log("note: counters not checked: repair the files first");
  const faults = report.faults.length + counters.length;
  console.log(`verify: ${summary(report)}: ${plural(faults, "fault")}`);
  if (faults > 0)
    console.log(`verify: to repair: ${adminProgram.name} repair (copy DATA_DIR first)`);
  return faults > 0 ? 1 : 0;
}

async function repair(directory: string): Promise<number> {
  const { steps, damagedFolder } = await repairLowdbStore(directory);
  for (const step of steps) console.log(line("repaired", { ...step, problem: step.did }));
  const counters = await withStore(directory, async (store) => {
    const faults = await checkCounters(store);
    for (const fault of faults) await fault.fix();
    return faults;
  });
  for (const { counter, problem } of counters) {
    console.log(`repaired: ${counter}: ${problem}: set to what its records make`);
  }
  const where = damagedFolder ? `; damaged files kept in ${damagedFolder}` : "";
  console.log(`repair: ${plural(steps.length + counters.length, "repair")}${where}`);
  return 0;
}

/** Runs `work` on the store opened as the server opens it (the journal replayed), then closes it. */
async function withStore<T>(
  directory: string,
  work: (store: ReturnType<typeof createLowdbStore>) => Promise<T>,
): Promise<T> {
  const store = createLowdbStore({ directory, warn: (message) => console.log(`note: ${message}`) });
  try {
    await store.open();
    return await work(store);
  } finally {
    await store.close();
  }
}

function line(kind: string, finding: { file: string; at?: string; problem: string }): string {
  return `${kind}: ${finding.file}${finding.at ? ` at ${finding.at}` : ""}: ${finding.problem}`;
}

function summary(report: StoreReport): string {
  return [
    `${plural(report.journals, "journal file")} (${plural(report.entries, "entry", "entries")})`,
    plural(report.partitions, "partition"),
    `${plural(report.segments, "segment file")} (${plural(report.records, "record")})`,
  ].join(", ");
}

function plural(count: number, one: string, other = `${one}s`): string {
  return `${count.toLocaleString("en")} ${count === 1 ? one : other}`;
}

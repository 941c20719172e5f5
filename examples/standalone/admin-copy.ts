/**
 * `npm run admin -- copy --to cosmos`: copies the stopped standalone server's store (the
 * lowdb records in `DATA_DIR/records`, the files in `DATA_DIR/files`) to Cosmos DB and Azure
 * Blob Storage, as named by the variables `npm run start:azure` reads
 * (`examples/azure/config.ts`), with `copyStore` of `formwork` (docs/design.md §24). Run it
 * again after an interruption: it finishes the job and duplicates nothing.
 *
 * Exit codes: 0 every collection counts as many records in Cosmos DB as in `DATA_DIR`;
 * 1 they differ, or the copy failed (the store in use, a variable missing, a store error);
 * 2 a usage error.
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { type CopyReport, copyStore } from "formwork";
import { createAzureBlobStore } from "formwork/adapters/azure-blob";
import { createCosmosStore } from "formwork/adapters/cosmos";
import { createFsBlobStore } from "formwork/adapters/fs";
import { type AzureConfig, cosmosOptionsOf, readAzureConfig } from "../azure/config.ts";
import { adminProgram } from "./admin-commands.ts";
import { parseCommandLine } from "./cli-args.ts";
import { copyProgress } from "./copy-progress.ts";
import { openDataStore, recordsFolder } from "./data-store.ts";

/** The usage of `copy`. */
export const copyUsage = `usage: ${adminProgram.name} copy --to cosmos

Copies every record and file of the standalone server's DATA_DIR (stop the server
first) to the Cosmos DB container and the Azure Blob Storage account that COSMOS_ENDPOINT,
COSMOS_KEY, COSMOS_DATABASE, COSMOS_CONTAINER and AZURE_STORAGE_CONNECTION_STRING name, as for
npm run start:azure. Run it again after an interruption: records and files already copied
are left as they are. Ends with the records of each collection in both; exits 0 only when
every collection matches.`;

/** Runs `copy` with its arguments. @returns the exit code */
export async function runCopy(argv: string[]): Promise<number> {
  let to: string | undefined;
  try {
    const { values, positionals } = parseCommandLine({
      args: argv,
      allowPositionals: true,
      options: { to: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
    if (values.help) {
      console.log(copyUsage);
      return 0;
    }
    if (positionals.length > 0) throw new Error(`unexpected ${positionals[0]}`);
    to = values.to;
  } catch (error) {
    console.error(`admin: ${(error as Error).message}\n\n${copyUsage}`);
    return 2;
  }
  if (to !== "cosmos") {
    const why = to === undefined ? "copy needs --to cosmos" : `cannot copy to ${to}`;
    console.error(`admin: ${why}\n\n${copyUsage}`);
    return 2;
  }
  const config = readAzureConfig(process.env);
  const records = recordsFolder(config.dataDir);
  try {
    await access(records);
  } catch {
    console.error(`admin: DATA_DIR ${config.dataDir} holds no store (no ${records})`);
    return 1;
  }
  console.log(
    `copying ${config.dataDir} to Cosmos DB ${config.cosmosDatabase}/${config.cosmosContainer} and Azure Blob Storage`,
  );
  const report = await copyToAzure(config);
  if (!report) return 1;
  console.log(reportTable(report));
  if (!report.matches) {
    console.error("admin: the counts differ; run the copy again, or see what else writes there");
  }
  return report.matches ? 0 : 1;
}

/** Opens both sides and copies. @returns the report, or `undefined` when DATA_DIR is in use */
async function copyToAzure(config: AzureConfig) {
  const from = await openDataStore(config.dataDir, "; stop the server first");
  if (!from) return undefined;
  const to = createCosmosStore({
    ...cosmosOptionsOf(config),
    // The copy writes plain creates, never intents: the servers' recovery is theirs to run.
    recoveryIntervalMs: 0,
  });
  const progress = copyProgress(process.stdout);
  try {
    return await copyStore({
      from,
      to,
      // Only read: no link is signed, so the signing key is never used.
      fromBlobs: createFsBlobStore({
        directory: join(config.dataDir, "files"),
        storageUrl: `${config.publicUrl}/storage`,
        signingSecret: "unused: the copy signs no link",
      }),
      toBlobs: createAzureBlobStore({ connectionString: config.storageConnectionString }),
      concurrency: 24,
      onProgress: progress.update,
    });
  } finally {
    progress.stop();
    await Promise.allSettled([from.close(), to.close()]);
  }
}

/** The per-collection comparison the copy ends with. */
export function reportTable(report: CopyReport): string {
  const rows = [
    ["collection", "DATA_DIR", "Cosmos DB", ""],
    ...report.collections.map((c) => [
      c.collection,
      String(c.source),
      String(c.target),
      c.source === c.target ? "ok" : "DIFFERS",
    ]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const { files } = report;
  return [
    ...rows.map(line),
    "",
    `records: ${report.written} copied, ${report.existed} already there`,
    `files: ${files.written} copied, ${files.existed} already there, ${files.missing} missing in DATA_DIR (of ${files.source})`,
  ].join("\n");
}

/**
 * What the example servers (express, hono, deno) print once they listen, after their
 * `listening on` line: where their data is, and how to reach their admin API with the admin
 * CLI, or how to turn it on: without `ADMIN_SECRET` they have none (README "Mounting in an app").
 */
import { resolve } from "node:path";

/** Where an example server runs. */
export interface StartNotes {
  /** `DATA_DIR` as given; printed as an absolute path. */
  dataDir: string;
  /** The address the admin CLI's `--url` takes: the server's, with its base path. */
  url: string;
  /** Whether `ADMIN_SECRET` is set (its value is never printed). */
  adminApi: boolean;
}

/** The lines an example server prints at start. */
export function startNotes({ dataDir, url, adminApi }: StartNotes): string[] {
  const cli = `npm run admin -- list-accounts --url ${url}`;
  return [
    `data folder: ${resolve(dataDir)} (records and files; DATA_DIR sets it)`,
    adminApi
      ? `admin API: ${url}/api/admin, with the ADMIN_SECRET it started with: ${cli} --admin-secret "$ADMIN_SECRET"`
      : `admin API: none; start with ADMIN_SECRET=<secret> to have one, then: ${cli} --admin-secret <secret>`,
  ];
}

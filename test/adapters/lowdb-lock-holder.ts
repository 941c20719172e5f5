/**
 * A child process for the lowdb lock test: opens the store in `argv[2]`, which takes its
 * lock, prints `locked` and holds it until killed.
 */

import { createLowdbStore } from "../../adapters/lowdb/index.ts";

await createLowdbStore({ directory: process.argv[2] as string }).open();
console.log("locked");
setInterval(() => {}, 60_000);

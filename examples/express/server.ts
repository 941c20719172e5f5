/** Runs the Express example: `npm run example:express`. */
import { randomBytes } from "node:crypto";
import { startNotes } from "../start-notes.ts";
import { createApp } from "./app.ts";

const port = Number(process.env.PORT ?? "3000");
const dataDir = process.env.DATA_DIR ?? "./data/express";
const { app, service } = createApp({
  publicUrl: process.env.PUBLIC_URL ?? `http://localhost:${port}`,
  dataDir,
  // Without SIGNING_SECRET, download links die with the process.
  signingSecret: process.env.SIGNING_SECRET ?? randomBytes(32).toString("base64url"),
  adminSecret: process.env.ADMIN_SECRET,
});
const server = app.listen(port, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${port}/forms`;
  console.log(`express example listening on ${url}`);
  for (const line of startNotes({ dataDir, url, adminApi: !!process.env.ADMIN_SECRET })) {
    console.log(line);
  }
});
process.on("SIGTERM", () => {
  server.close();
  void service.close();
});

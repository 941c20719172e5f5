/** Runs the Hono example on Node: `npm run example:hono`. */
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { startNotes } from "../start-notes.ts";
import { createApp } from "./app.ts";

const port = Number(process.env.PORT ?? "3000");
const dataDir = process.env.DATA_DIR ?? "./data/hono";
const { app, service } = createApp({
  publicUrl: process.env.PUBLIC_URL ?? `http://localhost:${port}`,
  dataDir,
  // Without SIGNING_SECRET, download links die with the process.
  signingSecret: process.env.SIGNING_SECRET ?? randomBytes(32).toString("base64url"),
  adminSecret: process.env.ADMIN_SECRET,
});
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  const url = `http://127.0.0.1:${info.port}/forms`;
  console.log(`hono example listening on ${url}`);
  for (const line of startNotes({ dataDir, url, adminApi: !!process.env.ADMIN_SECRET })) {
    console.log(line);
  }
});
process.on("SIGTERM", () => {
  server.close();
  void service.close();
});

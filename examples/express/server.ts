/** Runs the Express example: `npm run example:express`. */
import { randomBytes } from "node:crypto";
import { createApp } from "./app.ts";

const port = Number(process.env.PORT ?? "3000");
const { app, service } = createApp({
  publicUrl: process.env.PUBLIC_URL ?? `http://localhost:${port}`,
  dataDir: process.env.DATA_DIR ?? "./data/express",
  // Without SIGNING_SECRET, download links die with the process.
  signingSecret: process.env.SIGNING_SECRET ?? randomBytes(32).toString("base64url"),
  adminSecret: process.env.ADMIN_SECRET,
});
const server = app.listen(port, "127.0.0.1", () => {
  console.log(`express example listening on http://127.0.0.1:${port}/forms`);
});
process.on("SIGTERM", () => {
  server.close();
  void service.close();
});

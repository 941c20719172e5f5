/**
 * The floor an upload's rate is measured against (docs/design.md §22): a plain `node:http`
 * server that pipes each request body, as it comes, to a new file under `DATA_DIR`, and
 * answers 200 with the file's id. No parsing, no checks. Prints `listening on
 * http://host:port` as the standalone server does, so {@link startServer} runs it the same
 * way.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";

const dataDir = process.env.DATA_DIR ?? ".";
const server = createServer((request, response) => {
  const id = randomUUID();
  pipeline(request, createWriteStream(join(dataDir, id))).then(
    () => response.writeHead(200, { "content-type": "application/json" }).end(`{"id":"${id}"}`),
    () => response.writeHead(500).end(),
  );
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`listening on http://${process.env.HOST ?? "127.0.0.1"}:${port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

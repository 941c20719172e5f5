import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { assertWalkThroughWorked, runReadmeWalkThrough } from "./readme-walkthrough.ts";
import { freePort, start, stop } from "./server-process.ts";

describe("the README's curl walk-through", { timeout: 120_000 }, () => {
  it("runs as written against npm start's server", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-readme-data-"));
    // A fixed port, so that the download links (PUBLIC_URL's default) name it.
    const port = String(await freePort());
    const server = await start({ DATA_DIR: dataDir, PORT: port });
    const run = await runReadmeWalkThrough({ PORT: port, DATA_DIR: dataDir });
    try {
      await assertWalkThroughWorked(run);
    } finally {
      await stop(server.child);
      await run.cleanUp();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

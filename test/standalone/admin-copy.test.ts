/**
 * `npm run admin -- copy` refusing what it cannot do, as an operator meets it: a child
 * process, exit code 2 for a usage error, 1 with the server's own message for a DATA_DIR in
 * use (its lock held by this process's lowdb store) or a variable missing. The copy itself:
 * test/azure/copy-to-cosmos.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { type CommandRun, runCommand } from "../run-command.ts";
import { root } from "./server-process.ts";

/** Runs `admin copy …` with exactly the variables given (and PATH). */
function copy(args: string[], env: Record<string, string>): Promise<CommandRun> {
  const node = [process.execPath, "--conditions=formwork-source", "--import", "tsx"];
  const [program = "", ...rest] = node;
  return runCommand(program, [...rest, "examples/standalone/admin-cli.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
  });
}

/** Azure variables that name nothing reachable: the copy must stop before using them. */
const azure = {
  COSMOS_ENDPOINT: "http://127.0.0.1:9",
  COSMOS_KEY: "a2V5",
  COSMOS_DATABASE: "formwork",
  AZURE_STORAGE_CONNECTION_STRING:
    "DefaultEndpointsProtocol=http;AccountName=a;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:9/a;",
};

describe("admin copy", () => {
  it("answers usage errors with exit code 2, and `help copy` with its usage", async () => {
    const [none, other, extra, help] = await Promise.all([
      copy(["copy"], azure),
      copy(["copy", "--to", "s3"], azure),
      copy(["copy", "--to", "cosmos", "now"], azure),
      copy(["help", "copy"], {}),
    ]);
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /^admin: copy needs --to cosmos\n\nusage: npm run admin -- copy --to cosmos/,
    );
    assert.equal(other.code, 2);
    assert.match(other.stderr, /^admin: cannot copy to s3\n/);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /^admin: unexpected now\n/);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: npm run admin -- copy --to cosmos\n/);
  });

  it("refuses a DATA_DIR in use, with the server's message, and a missing variable", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-copy-cli-"));
    after(() => rm(dataDir, { recursive: true, force: true }));
    const store = createLowdbStore({ directory: join(dataDir, "records") });
    await store.open();
    after(() => store.close());
    const [inUse, unset, empty] = await Promise.all([
      copy(["copy", "--to", "cosmos"], { ...azure, DATA_DIR: dataDir }),
      copy(["copy", "--to", "cosmos"], { ...azure, DATA_DIR: dataDir, COSMOS_KEY: "" }),
      copy(["copy", "--to", "cosmos"], { ...azure, DATA_DIR: join(dataDir, "nothing") }),
    ]);
    assert.equal(inUse.code, 1, inUse.stderr);
    assert.match(
      inUse.stderr,
      new RegExp(
        `^DATA_DIR ${dataDir} is in use by another Formwork process \\(pid ${process.pid}\\); stop the server first\n$`,
      ),
    );
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /^admin: COSMOS_KEY must be set\n$/);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /holds no store/);
  });
});

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";

const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));

describe("npm scripts", () => {
  it("run long-running commands with exec, so that npm's SIGTERM reaches them", () => {
    // npm forwards SIGINT/SIGTERM to the `sh -c` it runs a script in, not to the shell's
    // children: without `exec` a stopped `npm start` leaves its server running (README).
    const longRunning = Object.entries(pkg.scripts as Record<string, string>).filter(([name]) =>
      /^(start|dev|example|admin)(:|$)/.test(name),
    );
    assert.ok(longRunning.some(([name]) => name === "start"));
    for (const [name, command] of longRunning) {
      assert.match(command, /^exec /, `npm run ${name}`);
    }
  });
});

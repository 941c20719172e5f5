/**
 * The `formwork` command (examples/standalone/cli.ts) from the sources: its usage lists every
 * command, options taking a value read `--name=value` and `--name value` alike, a value
 * starting with `-` included, the secrets a server makes never start with `-`, and its hints
 * name the command that was run (`npx formwork start`, not `npm start`).
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { commands } from "../../examples/standalone/admin-commands.ts";
import { joinedValues, parseCommandLine } from "../../examples/standalone/cli-args.ts";
import { newKeptSecret } from "../../examples/standalone/config.ts";
import { newSecret } from "../../src/domain/accounts/secrets.ts";
import { runCommand } from "../run-command.ts";
import { freePort, root } from "./server-process.ts";

/** Runs `formwork` with `args` from the sources, as the bundle in the package runs it. */
function formwork(args: string[]) {
  const node = ["--conditions=formwork-source", "--import", "tsx", "examples/standalone/cli.ts"];
  const { ADMIN_SECRET: _, ...env } = process.env;
  return runCommand(process.execPath, [...node, ...args], { cwd: root, env });
}

const options = {
  "admin-secret": { type: "string" },
  url: { type: "string", short: "u" },
  help: { type: "boolean", short: "h" },
} as const;

describe("the formwork command", () => {
  it("lists every command and every admin command in --help", async () => {
    const { code, stdout } = await formwork(["--help"]);
    assert.equal(code, 0);
    const names = ["start", "start:azure", "dev:azure", "admin", "backup", "verify", "repair"];
    for (const name of [...names, "copy", "help", ...commands.map((c) => c.name)]) {
      assert.match(stdout, new RegExp(`(^|\\s)${name}\\b`, "m"), `--help lists ${name}`);
    }
  });

  it("reads a value starting with - in both forms", () => {
    for (const args of [
      ["--admin-secret=-S-abc", "--url=-u"],
      ["--admin-secret", "-S-abc", "--url", "-u"],
      ["--admin-secret", "-S-abc", "-u", "-u"],
    ]) {
      const { values } = parseCommandLine({ args, options, allowPositionals: true });
      assert.deepEqual({ ...values }, { "admin-secret": "-S-abc", url: "-u" }, args.join(" "));
    }
    // After --, everything is a positional; a boolean option takes no value.
    assert.deepEqual(joinedValues(["-h", "x", "--", "--url", "y"], options), [
      "-h",
      "x",
      "--",
      "--url",
      "y",
    ]);
  });

  it("sends a secret starting with - given either way to the admin API", async () => {
    const secrets: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      secrets.push(request.headers.adminsecret as string | undefined);
      response.writeHead(200, { "content-type": "application/json" }).end("[]");
    }).listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const given of [["--admin-secret=-S-abc"], ["--admin-secret", "-S-abc"]]) {
        const run = await formwork(["admin", "list-accounts", ...given, "--url", url]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.trim(), "[]");
      }
      assert.deepEqual(secrets, ["-S-abc", "-S-abc"]);
    } finally {
      server.close();
    }
  });

  it("names itself as the way to start a server when none answers", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await formwork(["admin", "list-accounts", "--admin-secret", "s", "--url", url]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no server answers at .*; start it with npx formwork start$/m);
  });

  it("refuses an unknown command with exit code 2 and the usage", async () => {
    const { code, stderr } = await formwork(["serve"]);
    assert.equal(code, 2);
    assert.match(stderr, /^formwork: unknown command serve\n\nusage: formwork <command>/);
  });

  it("makes secrets that never start with -", () => {
    for (let i = 0; i < 20_000; i++) {
      const kept = newKeptSecret();
      const issued = newSecret();
      assert.match(kept, /^[0-9a-f]{64}$/);
      assert.match(issued, /^[A-Za-z0-9][A-Za-z0-9_-]{43}$/);
    }
  });
});

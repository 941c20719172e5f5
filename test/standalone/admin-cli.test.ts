/**
 * The admin CLI as an operator runs it: a child process, against the standalone server as
 * another child process on a temporary DATA_DIR, finding both by the server's settings.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { compileScript } from "../../bench/compiled-server.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { commands } from "../../examples/standalone/admin-commands.ts";
import { adminServerUrl, localServerUrl } from "../../examples/standalone/admin-target.ts";
import { readConfig } from "../../examples/standalone/config.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { type CommandRun, runCommand } from "../run-command.ts";
import { freePort, root, start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

/** Runs `command` in the project folder with `env` added to a clean server environment. */
function run(command: string[], env: Record<string, string>): Promise<CommandRun> {
  const clean = { ...process.env };
  for (const name of ["PUBLIC_URL", "ADMIN_SECRET", "HOST", "PORT", "DATA_DIR"]) delete clean[name];
  const [program = "", ...args] = command;
  return runCommand(program, args, { cwd: root, env: { ...clean, ...env } });
}

/**
 * The admin CLI's own code (`examples/standalone/admin-cli.ts`, what `npm run admin` runs
 * through tsx) compiled once into one file, as the benches compile theirs: the same
 * program, started without tsx's second or so of loading each of the many runs below. The
 * first test runs `npm run admin` itself and checks that both print the same.
 */
const compiled = compileScript("examples/standalone/admin-cli.ts");
after(async () => (await compiled).remove());

/** Runs the admin CLI with `args`, as `npm run admin` does but without npm's own lines. */
async function admin(args: string[], env: Record<string, string> = {}): Promise<CommandRun> {
  return run([process.execPath, (await compiled).path, ...args], env);
}

/** The JSON a successful command prints. */
async function answer(args: string[], env: Record<string, string>) {
  const result = await admin(args, env);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

describe("admin CLI's server address", () => {
  it("is the server's HOST and PORT, the wildcard addresses as loopback", () => {
    const url = (env: Record<string, string>) => adminServerUrl(undefined, env, readConfig(env));
    assert.equal(url({}), "http://127.0.0.1:3000");
    assert.equal(url({ HOST: "0.0.0.0", PORT: "8080" }), "http://127.0.0.1:8080");
    assert.equal(url({ HOST: "::" }), "http://[::1]:3000");
    assert.equal(localServerUrl({ host: "fd00::5", port: 80 }), "http://[fd00::5]:80");
    assert.equal(url({ HOST: "forms.lan" }), "http://forms.lan:3000");
  });

  it("is --url, else PUBLIC_URL, and refuses PORT 0", () => {
    const env = { PUBLIC_URL: "https://forms.example.com/", PORT: "0" };
    assert.equal(adminServerUrl("http://x:1/", env, readConfig(env)), "http://x:1");
    assert.equal(adminServerUrl(undefined, env, readConfig(env)), "https://forms.example.com");
    assert.throws(
      () => adminServerUrl(undefined, { PORT: "0" }, readConfig({ PORT: "0" })),
      /pass --url/,
    );
  });
});

describe("admin CLI", () => {
  it("prints the usage of every command for --help, -h and help, with exit code 0", async () => {
    const npm = await run(["npm", "run", "--silent", "admin", "--", "--help"], {});
    assert.equal(npm.code, 0, npm.stderr);
    for (const command of commands) assert.match(npm.stdout, new RegExp(`\\n  ${command.name}`));
    assert.match(npm.stdout, /--url <url>/);
    assert.match(npm.stdout, /--admin-secret <secret>/);
    for (const args of [["-h"], ["help"]]) assert.equal((await admin(args)).stdout, npm.stdout);
    for (const args of [
      ["revoke-token", "--help"],
      ["help", "revoke-token"],
    ]) {
      const one = await admin(args);
      assert.equal(one.code, 0);
      assert.match(one.stdout, /^usage: npm run admin -- revoke-token --token-id <token id>/);
      assert.match(one.stdout, /other tokens keep working/);
    }
  });

  it("answers an unknown command or a missing option with the usage on stderr, exit code 2", async () => {
    for (const args of [[], ["bogus"], ["list-tokens"], ["revoke-token", "--token-id"], ["--x"]]) {
      const result = await admin(args);
      assert.equal(result.code, 2, args.join(" "));
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /usage: npm run admin -- /);
    }
    assert.match((await admin(["list-tokens"])).stderr, /list-tokens needs --user-id/);
  });

  it("says that no server answers, and how to start one", async () => {
    const port = await freePort();
    const result = await admin(["list-accounts"], { PORT: String(port), ADMIN_SECRET: "s" });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "");
    assert.equal(
      result.stderr.trim(),
      `admin: no server answers at http://127.0.0.1:${port}; start it with npm start`,
    );
  });

  describe("against a running server", () => {
    let dataDir = "";
    let server: StandaloneServer;
    /** The server's own settings: the CLI finds the server and the secret from them. */
    let env: Record<string, string> = {};

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "formwork-admin-cli-"));
      server = await start({ DATA_DIR: dataDir, ADMIN_SECRET: "" });
      // The server listens on 127.0.0.1; HOST 0.0.0.0 must lead the CLI there as well.
      env = { DATA_DIR: dataDir, PORT: new URL(server.base).port, HOST: "0.0.0.0" };
    });
    after(async () => {
      await stop(server.child);
      await rm(dataDir, { recursive: true, force: true });
    });

    const restricted = (token: { token_id: string; token_secret: string }) =>
      fetch(`${server.base}/api/restricted/user/form`, {
        headers: { TokenId: token.token_id, TokenSecret: token.token_secret },
      }).then((response) => response.status);

    it("creates and lists accounts and tokens, and revokes a token", async () => {
      const alice = await answer(["create-account", "--email", "alice@example.com"], env);
      await answer(["create-account", "--email", "bob@example.com"], env);
      const accounts = await answer(["list-accounts"], env);
      assert.deepEqual(
        accounts.map((a: { email: string }) => a.email),
        ["alice@example.com", "bob@example.com"],
      );
      assert.equal(accounts[0].user_id, alice.user_id);

      const second = await answer(["create-token", "--user-id", alice.user_id], env);
      const tokens = await answer(["list-tokens", "--user-id", alice.user_id], env);
      assert.deepEqual(
        tokens.map((t: { token_id: string }) => t.token_id),
        [alice.token_id, second.token_id],
      );
      assert.ok(!JSON.stringify(tokens).includes(alice.token_secret));

      assert.equal(await restricted(alice), 200);
      const revoked = await answer(["revoke-token", "--token-id", alice.token_id], env);
      assert.equal(revoked.message, "Token revoked");
      assert.equal(await restricted(alice), 401);
      assert.equal(await restricted(second), 200);
      const listed = await answer(["list-tokens", "--user-id", alice.user_id], env);
      assert.deepEqual(
        listed.map((t: { token_id: string }) => t.token_id),
        [second.token_id],
      );

      const again = await admin(["revoke-token", "--token-id", alice.token_id], env);
      assert.equal(again.code, 1);
      assert.equal(again.stderr.trim(), "admin: 404: Token not found");
      const bad = await admin(["list-tokens", "--user-id", "nobody"], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^admin: 400: .*\n {2}userId: /);
    });

    it("names the admin secret's source when the server refuses it", async () => {
      const wrong = await admin(["list-accounts", "--admin-secret", "wrong"], env);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /refused the admin secret from --admin-secret \(401\)/);
      const other = await admin(["list-accounts"], { ...env, ADMIN_SECRET: "other" });
      assert.match(other.stderr, /refused the admin secret from ADMIN_SECRET \(401\)/);
      const byUrl = await admin(["list-accounts", "--url", `${server.base}/`], {
        DATA_DIR: dataDir,
      });
      assert.equal(byUrl.code, 0, byUrl.stderr);
    });
  });
});

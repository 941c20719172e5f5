import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { freePort } from "../standalone/server-process.ts";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
const tsc = join(root, "node_modules/typescript/bin/tsc");

/** What each subpath must export at least; subpaths added later must export something. */
const expectedExports: Record<string, string[]> = {
  ".": ["createFormService", "createHttpWebhookSender", "defaultLimits", "ServiceError"],
  "./testing": ["storeConformanceCases", "blobStoreConformanceCases", "paymentsConformanceCases"],
  "./testing/node": [
    "runStoreConformance",
    "runBlobStoreConformance",
    "runPaymentsConformance",
    "runWithNodeTest",
  ],
  "./ports": ["StoreConflictError", "StoreUnavailableError", "DownloadRefusedError"],
  "./ports/kit": ["isNotFound", "evaluateQuery", "queryAll", "downloadHeaders", "updateRecord"],
  "./adapters/memory": ["createMemoryStore", "createMemoryBlobStore"],
  "./adapters/lowdb": ["createLowdbStore"],
  "./adapters/fs": ["createFsBlobStore"],
  "./adapters/cosmos": ["createCosmosStore"],
  "./adapters/azure-blob": ["createAzureBlobStore"],
  "./adapters/smtp": ["createSmtpMailer", "nodemailerMessage"],
  "./adapters/stripe": ["createStripePayments"],
};

/**
 * The environment of every command here: no coverage collection (the scratch project is not
 * ours to measure) and no `NODE_OPTIONS`, so that no export condition leaks in.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const { NODE_V8_COVERAGE: _coverage, NODE_OPTIONS: _options, ...env } = process.env;
  return env;
}

/** `npm pack --json` prints the prepack script's output first, then the JSON. */
function packJson(stdout: string) {
  const start = stdout.search(/^\[/m);
  assert.ok(start >= 0, stdout);
  return JSON.parse(stdout.slice(start))[0] as { filename: string; files: { path: string }[] };
}

/** Installs `packages` into a new project `name` under `dir`, from npm's cache alone. */
async function installOffline(dir: string, name: string, packages: string[]): Promise<string> {
  const project = join(dir, name);
  await mkdir(project);
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  const flags = ["--no-audit", "--no-fund", "--offline", "--ignore-scripts"];
  await run("npm", ["install", ...packages, ...flags], { cwd: project, env: cleanEnv() });
  return project;
}

describe("the npm package", { timeout: 180_000 }, () => {
  let dir = "";
  let tarball = "";
  let files: string[] = [];
  const subpaths = Object.keys(pkg.exports as Record<string, unknown>);
  const specifier = (subpath: string) => `formwork${subpath.slice(1)}`;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "formwork-pack-"));
    // prepack builds dist/ first, as it must on a clean clone.
    const packed = await run("npm", ["pack", "--json", "--pack-destination", dir], {
      cwd: root,
      env: cleanEnv(),
      maxBuffer: 16 * 1024 * 1024,
    });
    const { filename, files: listed } = packJson(packed.stdout);
    tarball = join(dir, filename);
    files = listed.map((file) => file.path);
    const project = join(dir, "project");
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "scratch", private: true, type: "module" }),
    );
    // Optional peers are not installed on their own; take the versions this repo tests with.
    // @types/node as well, as in any Node project: the Azure SDKs' declarations need it.
    const peers = [...Object.keys(pkg.peerDependencies ?? {}), "@types/node"].map(
      (name) => `${name}@${pkg.devDependencies[name] ?? pkg.peerDependencies[name]}`,
    );
    await run(
      "npm",
      [
        "install",
        join(dir, filename),
        ...peers,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--ignore-scripts",
      ],
      { cwd: project, env: cleanEnv() },
    );
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    // As on a clean clone: a stale dist/ would quietly serve whatever runs without the
    // formwork-source condition.
    await rm(join(root, "dist"), { recursive: true, force: true });
  });

  it("holds compiled JavaScript and declarations, and no sources, tests or examples", () => {
    for (const file of files) {
      assert.ok(
        /^dist\/.*\.(js|d\.ts)$/.test(file) ||
          // The bundle of the formwork command: maps name TypeScript lines, without the sources.
          /^dist\/standalone\/[\w-]+\.js(\.map|\.LEGAL\.txt)?$/.test(file) ||
          /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|bin\/formwork\.js)$/.test(file),
        `${file} should not be in the package`,
      );
      assert.doesNotMatch(file, /\.test\.|^dist\/(test|examples|bench)\//);
    }
    assert.ok(files.includes("LICENSE"), "the MIT licence text ships with the package");
    for (const bin of Object.values(pkg.bin as Record<string, string>)) {
      assert.ok(files.includes(bin), `the bin ${bin} is in the package`);
    }
    for (const subpath of subpaths) {
      const entry = pkg.exports[subpath];
      assert.equal(
        typeof entry,
        "object",
        `exports["${subpath}"] needs the "formwork-source", "types" and "default" conditions`,
      );
      assert.ok(files.includes(entry.default.slice(2)), `${subpath}: ${entry.default}`);
      assert.ok(files.includes(entry.types.slice(2)), `${subpath}: ${entry.types}`);
    }
  });

  it("imports every subpath with plain node", async () => {
    const script = `
      const found = {};
      for (const name of ${JSON.stringify(subpaths.map(specifier))}) {
        found[name] = Object.keys(await import(name));
      }
      console.log(JSON.stringify(found));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(dir, "project"),
      env: cleanEnv(),
    });
    const found: Record<string, string[]> = JSON.parse(stdout);
    for (const subpath of subpaths) {
      const names = found[specifier(subpath)] ?? [];
      assert.ok(names.length > 0, `${subpath} exports nothing`);
      for (const name of expectedExports[subpath] ?? []) {
        assert.ok(names.includes(name), `${subpath} lacks ${name}`);
      }
    }
  });

  it("serves requests from the compiled code", async () => {
    const script = `
      import { createFormService } from "formwork";
      import { createMemoryStore } from "formwork/adapters/memory";
      const service = createFormService({ store: createMemoryStore(), basePath: "/forms" });
      const response = await service.fetch(new Request("http://localhost/forms/openapi.json"));
      console.log(response.status, (await response.json()).openapi);
      await service.close();`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(dir, "project"),
      env: cleanEnv(),
    });
    assert.equal(stdout.trim(), "200 3.1.1");
  });

  it("answers 503 for the contracts' StoreUnavailableError from a third-party adapter", async () => {
    // The adapter takes the error from `formwork/ports`, as a third party would; the service
    // must know it for the same class, not a copy of it.
    const script = `
      import { createFormService } from "formwork";
      import { createMemoryStore } from "formwork/adapters/memory";
      import { StoreUnavailableError } from "formwork/ports";
      const store = createMemoryStore();
      store.get = () => Promise.reject(new StoreUnavailableError("down", { retryAfterSeconds: 7 }));
      const service = createFormService({ store });
      const headers = { TokenId: "00000000-0000-4000-8000-000000000000", TokenSecret: "x" };
      const response = await service.fetch(
        new Request("http://localhost/api/restricted/user/form", { headers }),
      );
      console.log(response.status, response.headers.get("retry-after"), (await response.json()).error);
      await service.close();`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(dir, "project"),
      env: cleanEnv(),
    });
    assert.equal(stdout.trim(), "503 7 service_unavailable");
  });

  it("type-checks a strict consumer against the declarations", async () => {
    const project = join(dir, "project");
    const imports = subpaths.map((subpath, n) => `import * as m${n} from "${specifier(subpath)}";`);
    await writeFile(
      join(project, "consumer.ts"),
      [
        ...imports,
        `const service: m0.FormService = m0.createFormService({ store: m${subpaths.indexOf("./adapters/memory")}.createMemoryStore() });`,
        "const response: Response = await service.fetch(new Request('http://localhost/'));",
        "// @ts-expect-error: the options are typed, not any",
        "m0.createFormService({ store: undefined });",
        `console.log(response, ${subpaths.map((_, n) => `m${n}`).join(", ")});`,
      ].join("\n"),
    );
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023", "DOM"],
          types: ["node"],
          strict: true,
          noEmit: true,
        },
        files: ["consumer.ts"],
      }),
    );
    const checked = await run(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: project,
      env: cleanEnv(),
    }).catch((error: { stdout?: string }) => ({ failed: error.stdout ?? String(error) }));
    assert.ok(!("failed" in checked), "failed" in checked ? checked.failed : "");
  });

  describe("with only its hard dependencies installed", () => {
    // Installed after the project above, which leaves in npm's cache all that these need.
    const peers = Object.keys(pkg.peerDependencies ?? {});
    const version = (name: string) => `${name}@${pkg.devDependencies[name]}`;
    let bare = "";
    let withLowdb = "";
    before(async () => {
      bare = await installOffline(dir, "bare", [tarball]);
      withLowdb = await installOffline(dir, "with-lowdb", [tarball, version("lowdb")]);
    });

    /** Runs `script` as an ES module in `project`; what it prints, or the error's message. */
    const node = (project: string, script: string) =>
      run(process.execPath, ["--input-type=module", "-e", script], {
        cwd: project,
        env: cleanEnv(),
      }).then(
        ({ stdout }) => stdout.trim(),
        (error: { stderr?: string }) => error.stderr ?? String(error),
      );

    it("installs none of the optional peers", async () => {
      const installed = await readdir(join(bare, "node_modules"), { recursive: true });
      const found = installed.filter((entry) =>
        peers.some((peer) => entry === peer || entry.endsWith(`node_modules/${peer}`)),
      );
      assert.deepEqual(found, []);
      assert.ok(installed.includes("valibot"), "the hard dependencies are installed");
    });

    it("serves requests from formwork and formwork/adapters/memory", async () => {
      const script = `
        import { createFormService } from "formwork";
        import { createMemoryStore } from "formwork/adapters/memory";
        import "formwork/ports";
        import "formwork/testing";
        const service = createFormService({ store: createMemoryStore() });
        const response = await service.fetch(new Request("http://localhost/openapi.json"));
        console.log(response.status);
        await service.close();`;
      assert.equal(await node(bare, script), "200");
    });

    it("names the package to install when an adapter's optional peer is missing", async () => {
      const failure = (project: string, subpath: string) =>
        node(project, `await import("formwork/adapters/${subpath}"); console.log("loaded");`);
      assert.match(await failure(withLowdb, "lowdb"), /Cannot find package 'proper-lockfile'/);
      assert.match(await failure(bare, "smtp"), /Cannot find package 'nodemailer'/);
      assert.match(await failure(bare, "stripe"), /Cannot find package 'stripe'/);
      assert.match(await failure(bare, "cosmos"), /Cannot find package '@azure\/cosmos'/);
    });
  });

  describe("installed with its scripts, as a user installs it", () => {
    let project = "";
    let installed = "";
    before(async () => {
      // Installed after the projects above, which leave in npm's cache all that it needs.
      project = join(dir, "user");
      await mkdir(project);
      await writeFile(
        join(project, "package.json"),
        JSON.stringify({ name: "user", private: true }),
      );
      const flags = ["--no-audit", "--no-fund", "--offline"];
      const result = await run("npm", ["install", tarball, ...flags], {
        cwd: project,
        env: cleanEnv(),
      });
      installed = `${result.stdout}${result.stderr}`;
    });

    it("runs none of the package's scripts and warns about none", () => {
      const manifest = pkg.scripts as Record<string, string>;
      for (const name of ["preinstall", "install", "postinstall", "prepare"]) {
        assert.equal(manifest[name], undefined, `a ${name} script runs on the user's install`);
      }
      assert.doesNotMatch(installed, /install-scripts|allowScripts|prepare|formwork@/, installed);
    });

    it("runs npx formwork --help", async () => {
      const { stdout } = await run("npx", ["--offline", "formwork", "--help"], {
        cwd: project,
        env: cleanEnv(),
      });
      assert.match(stdout, /^usage: formwork <command>/);
      for (const name of ["start", "dev:azure", "admin", "verify", "backup", "copy"]) {
        assert.match(stdout, new RegExp(`^  ${name}\\b`, "m"), name);
      }
    });

    it("starts the standalone server with npx formwork start, and stops it", async () => {
      const port = await freePort();
      const npx = spawn("npx", ["--offline", "formwork", "start"], {
        cwd: project,
        env: { ...cleanEnv(), PORT: String(port), DATA_DIR: join(project, "data") },
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group: npx, sh and the server all get the SIGTERM.
        detached: true,
      });
      let output = "";
      const listening = new Promise<void>((resolve, reject) => {
        const read = (chunk: Buffer) => {
          output += chunk;
          if (output.includes(`listening on http://127.0.0.1:${port}`)) resolve();
        };
        npx.stdout.on("data", read);
        npx.stderr.on("data", read);
        npx.once("exit", (code) =>
          reject(new Error(`npx formwork start exited (${code}):\n${output}`)),
        );
      });
      try {
        await listening;
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        assert.equal(health.status, 200);
        const secret = await readFile(join(project, "data", "admin-secret"), "utf8");
        assert.doesNotMatch(secret, /^-/);
      } finally {
        process.kill(-(npx.pid as number), "SIGTERM");
      }
      await once(npx, "exit");
      // The server itself is gone once its port refuses.
      for (let tries = 0; ; tries++) {
        const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => true,
          () => false,
        );
        if (!answered) break;
        assert.ok(tries < 100, "the server still answers 10 s after SIGTERM");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
  });
});

/**
 * Runs the README's shell walk-through as written: the `sh` blocks of its sections
 * "A walk through with curl", "Partners" and "Personal data", in one bash, against a running
 * server.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "./server-process.ts";

/** The `sh` blocks of the README sections whose headings are given, in order. */
export async function readmeShellBlocks(headings: string[]): Promise<string[]> {
  const readme = await readFile(join(root, "README.md"), "utf8");
  return headings.flatMap((heading) => {
    const start = readme.indexOf(`\n## ${heading}\n`);
    assert.ok(start >= 0, `README has a section "${heading}"`);
    const end = readme.indexOf("\n## ", start + 1);
    const section = readme.slice(start, end < 0 ? undefined : end);
    return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  });
}

/** What a walk-through run printed, and the folder it ran in (removed by `cleanUp`). */
export interface WalkThroughRun {
  code: number | null;
  output: string;
  folder: string;
  cleanUp(): Promise<void>;
}

/**
 * Runs the README's walk-through with `env` (PORT, DATA_DIR, …) under `bash -euo pipefail`,
 * in a scratch folder that looks like the project to `npm run` (links to its package.json,
 * node_modules and sources), so that the files it writes land there and not in the repo.
 */
export async function runReadmeWalkThrough(env: Record<string, string>): Promise<WalkThroughRun> {
  const script = (
    await readmeShellBlocks(["A walk through with curl", "Partners", "Personal data"])
  ).join("\n");
  const folder = await mkdtemp(join(tmpdir(), "formwork-readme-"));
  await lookLikeTheProject(folder);
  const { code, output } = await runBash(script, folder, env);
  return { code, output, folder, cleanUp: () => rm(folder, { recursive: true, force: true }) };
}

/**
 * Makes `folder` look like the project to `npm run` and `npm start`: links to its
 * package.json, node_modules, sources and the built server, so that the files a README
 * block writes land there and not in the repository.
 */
export async function lookLikeTheProject(folder: string): Promise<void> {
  for (const name of [
    "package.json",
    "node_modules",
    "tsconfig.json",
    "src",
    "adapters",
    "examples",
    "build",
  ])
    await symlink(join(root, name), join(folder, name));
}

/** Runs `script` under `bash -euo pipefail` in `cwd` with `env` added; its exit code and output. */
export async function runBash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

/** Asserts that a run finished, every call succeeded, and the download is the upload. */
export async function assertWalkThroughWorked(run: WalkThroughRun): Promise<void> {
  assert.equal(run.code, 0, run.output);
  assert.doesNotMatch(run.output, /"action_successful":false|"error":"[a-z]/, run.output);
  assert.match(run.output, /"message":"Submission posted successfully"/);
  assert.match(run.output, /"message":"User updated"/);
  assert.match(run.output, /"form_name":"Carla's survey"/);
  // Personal data: the respondent's one submission exported, erased, and both audited.
  assert.match(run.output, /"deleted":1,"forms":\[\{"form_id":"[^"]+","deleted":1\}\]/);
  const exported = await readFile(join(run.folder, "grace.ndjson"), "utf8");
  assert.equal(exported.trim().split("\n").length, 1, exported);
  assert.match(exported, /"submitted_value":"Grace.Hopper@Example.com"/);
  assert.match(run.output, /"action":"respondent_erased"/);
  assert.match(run.output, /"action":"respondent_exported"/);
  const downloaded = await readFile(join(run.folder, "downloads", "cv.txt"), "utf8");
  assert.equal(downloaded, "my curriculum vitae\n");
}

/**
 * The tar archive of a staged backup (docs/design.md §23), written by the system's `tar` in
 * a child process at the lowest CPU priority, so that the server's requests keep the CPU
 * while it runs: node-tar in the server's own thread took about 12 ms of CPU per MiB
 * (`bench/backup.bench.ts`), against a few for piping the child's output to the socket.
 * Where there is no `tar` program, node-tar writes it in process.
 */
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import type { Readable } from "node:stream";
import { create } from "tar";
import type { Staged } from "./backup-staging.ts";

/** A running archive: its bytes, and how to stop writing it. */
export interface Archive {
  stream: Readable;
  /** Settles once the archive was written whole; rejects when its writer failed. */
  done: Promise<void>;
  stop(): void;
}

/** Starts archiving `staged`: its top-level entries, paths relative to its folder. */
export async function archive(staged: Staged): Promise<Archive> {
  return (await systemTar(staged)) ?? nodeTar(staged);
}

/** The system's `tar`, or `undefined` when there is none. */
async function systemTar(staged: Staged): Promise<Archive | undefined> {
  // Records of 1 MiB (-b 2048) rather than 10 KiB: fewer, larger reads for the server.
  const args = ["-c", "-b", "2048", "-f", "-", "-C", staged.folder, "--", ...staged.entries];
  const child = spawn("tar", args, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const started = await new Promise<boolean>((resolve) => {
    child.once("spawn", () => resolve(true));
    child.once("error", () => resolve(false));
  });
  if (!started || child.pid === undefined) return undefined;
  try {
    setPriority(child.pid, 19);
  } catch {
    // Not allowed here: it runs at the server's priority.
  }
  let errors = "";
  child.stderr.on("data", (chunk) => {
    errors += chunk;
  });
  const done = new Promise<void>((resolve, reject) => {
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`tar ended with ${signal ?? code}: ${errors.trim()}`));
    });
  });
  return { stream: child.stdout, done, stop: () => child.kill() };
}

function nodeTar(staged: Staged): Archive {
  const pack = create({ cwd: staged.folder, portable: true }, staged.entries);
  const done = new Promise<void>((resolve, reject) => {
    pack.once("end", resolve);
    pack.once("error", reject);
  });
  return {
    stream: pack as unknown as Readable,
    done,
    stop: () => pack.destroy?.(),
  };
}

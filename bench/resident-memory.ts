/**
 * Reads another process's resident memory from `/proc/<pid>/status` (Linux only): the
 * current size (`VmRSS`) and the kernel's own high-water mark (`VmHWM`), which catches a
 * peak shorter than any sampling interval once `resetPeak` has cleared it.
 */
import { readFileSync, writeFileSync } from "node:fs";

const mebibyte = 1024 * 1024;

/** One field of `/proc/<pid>/status`, in MiB. */
function statusMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (!match?.[1]) throw new Error(`no ${field} in /proc/${pid}/status`);
  return (Number(match[1]) * 1024) / mebibyte;
}

/** The process's resident memory now, in MiB. */
export function residentMiB(pid: number): number {
  return statusMiB(pid, "VmRSS");
}

/** The highest resident memory since the last `resetPeak` (or the start), in MiB. */
export function peakMiB(pid: number): number {
  return statusMiB(pid, "VmHWM");
}

/** Sets the high-water mark back to the current resident memory (`clear_refs` 5). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** What a {@link sampleWhile} saw. */
export interface MemoryTrace {
  /** Resident memory just before `work` started. */
  before: number;
  /** The highest sample taken while `work` ran. */
  sampledPeak: number;
  /** The kernel's high-water mark over the same time. */
  kernelPeak: number;
  /** Resident memory just after `work` ended. */
  after: number;
  samples: number;
  milliseconds: number;
}

/**
 * Samples the resident memory of `pid` every `intervalMs` while `work` runs.
 * @returns `work`'s result and the memory trace, all in MiB.
 */
export async function sampleWhile<T>(
  pid: number,
  work: () => Promise<T>,
  intervalMs = 20,
): Promise<{ result: T; trace: MemoryTrace }> {
  resetPeak(pid);
  const before = residentMiB(pid);
  let sampledPeak = before;
  let samples = 1;
  const timer = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, residentMiB(pid));
    samples++;
  }, intervalMs);
  const start = performance.now();
  try {
    const result = await work();
    const milliseconds = performance.now() - start;
    const after = residentMiB(pid);
    sampledPeak = Math.max(sampledPeak, after);
    const kernelPeak = peakMiB(pid);
    return {
      result,
      trace: { before, sampledPeak, kernelPeak, after, samples: samples + 1, milliseconds },
    };
  } finally {
    clearInterval(timer);
  }
}

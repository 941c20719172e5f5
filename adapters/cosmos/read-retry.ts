/** Our own retry of reads after a transient failure, on top of the SDK's 429 retries. */
import { setTimeout as sleep } from "node:timers/promises";
import { isTransient } from "./errors.ts";

/** The waits before each retry of a read: two retries, a quarter of a second at most. */
const delaysMs = [50, 200];

/**
 * Runs a read (a point read or a query page) and runs it again, at most twice, when it fails
 * with a transient error (see `isTransient`). Only reads: a write that timed out may have
 * been applied, and running it again would report a conflict with itself.
 */
export async function retryRead<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const delay = delaysMs[attempt];
      if (delay === undefined || !isTransient(error)) throw error;
      await sleep(delay);
    }
  }
}

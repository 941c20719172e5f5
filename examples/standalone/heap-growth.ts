/**
 * The headroom V8 leaves its heap (docs/design.md §22): how far the heap may grow past what
 * its last full collection left live before it collects again. Under a steady load V8
 * chooses up to four times what is live; a server's live data is mostly the store's loaded
 * records, so that headroom, not the data, was most of its resident memory.
 */
import { setFlagsFromString } from "node:v8";

/**
 * Lets V8's heap grow at most `percent` % past what its last full collection left live
 * (`HEAP_GROWING_PERCENT`); `0` leaves the choice to V8.
 * @param set how a V8 flag is set; `node:v8`'s `setFlagsFromString` unless a test says
 */
export function limitHeapGrowth(
  percent: number,
  set: (flags: string) => void = setFlagsFromString,
): void {
  // V8 reads this flag each time it sizes the heap after a full collection, so setting it
  // once the process runs takes effect from the next collection on.
  if (percent > 0) set(`--heap-growing-percent=${percent}`);
}

/**
 * Turns on a counter record within one process (hot path). S2 reads the form's counter and
 * then writes it in a batch conditional on the etag it read. Concurrent posts to one form
 * all read the same etag, so all but one batch fail and start over: on lowdb, with 50
 * posts in flight, nearly every S2 wrote twice (a second read, a failed batch, a wait).
 * Taking turns per counter, from the read until the batch is handed to the store, orders
 * them instead: the store queues each batch before the next post's read (lowdb queues both
 * on the counter's partition in call order; the memory store writes at the call), so the
 * next post reads the counter as the previous batch left it.
 *
 * It only saves work: the etag condition still decides, so a writer in another process, or
 * a store that does not keep call order (Cosmos DB over several connections), meets a
 * conflict and starts over as before. A turn is held over what S2 does between the read
 * and the batch: a few reads, no wait on the batch's durable write, which the next post
 * does not need (its own batch queues behind it).
 */
import type { Store } from "../../ports/store.ts";

/** Ends a turn; only the first call does anything. */
export type EndTurn = () => void;

/** The last turn queued on each key, per store (two services over one store share them). */
const queues = new WeakMap<Store, Map<string, Promise<void>>>();

/**
 * Waits for the turns taken on `key` before this one. @returns how to end this turn, which
 * lets the next one start; call it once the write is handed to the store, or on failure.
 */
export async function takeTurn(store: Store, key: string): Promise<EndTurn> {
  let tails = queues.get(store);
  if (!tails) {
    tails = new Map();
    queues.set(store, tails);
  }
  const before = tails.get(key);
  let end = () => {};
  const mine = new Promise<void>((resolve) => {
    end = resolve;
  });
  tails.set(key, mine);
  if (before) await before;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    end();
    // The last turn leaves nothing behind: the map holds only keys with posts in flight.
    if (tails.get(key) === mine) tails.delete(key);
  };
}

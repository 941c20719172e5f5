/**
 * A source of etags for a store that makes its own: each call answers a new one. Etags need
 * only differ between the versions of one record, across restarts too: a count after a
 * prefix of 48 random bits drawn here is cheaper than a UUID per write (hot path).
 */
export function etagSource(): () => string {
  const prefix = `${crypto.randomUUID().slice(24)}-`;
  let count = 0;
  return () => prefix + (++count).toString(36);
}

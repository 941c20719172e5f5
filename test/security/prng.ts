/**
 * A small seeded pseudo-random generator (mulberry32) and the picks the fuzz makes with it,
 * so that a seed replays the same run. `FUZZ_SEED` chooses the seed; otherwise one is drawn.
 */

/** Random choices drawn from one seed. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of `items`. */
  pick<T>(items: readonly T[]): T;
  /** A string of `length` characters drawn from `alphabet`. */
  text(length: number, alphabet?: string): string;
}

const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");

/** A generator seeded with `seed` (an unsigned 32-bit integer). */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick,
    text: (length, alphabet = printable) =>
      Array.from({ length }, () => alphabet[int(0, alphabet.length - 1)]).join(""),
  };
}

/** The seed of this run: `FUZZ_SEED` when set, else a fresh one. */
export function fuzzSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new Error(`FUZZ_SEED must be a whole number, not ${JSON.stringify(given)}`);
    }
    return seed >>> 0;
  }
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

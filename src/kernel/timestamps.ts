/** What `modified_date_utc` holds for a record that has never been modified. */
export const neverModified = "0001-01-01T00:00:00";

/** The timestamps every stored record carries. */
export interface Timestamps {
  created_date_utc: string;
  modified_date_utc: string;
}

/** Timestamps of a record created at `now`. */
export function createdAt(now: Date): Timestamps {
  return { created_date_utc: isoString(now), modified_date_utc: neverModified };
}

/** The last time {@link isoString} wrote, and how: writes within one millisecond share it. */
let lastWritten = { time: Number.NaN, text: "" };

/** `at.toISOString()`, written once per millisecond under load (hot path). */
export function isoString(at: Date): string {
  const time = at.getTime();
  if (time !== lastWritten.time) lastWritten = { time, text: at.toISOString() };
  return lastWritten.text;
}

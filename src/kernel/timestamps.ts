/** What `modified_date_utc` holds for a record that has never been modified. */
export const neverModified = "0001-01-01T00:00:00";

/** The timestamps every stored record carries. */
export interface Timestamps {
  created_date_utc: string;
  modified_date_utc: string;
}

/** Timestamps of a record created at `now`. */
export function createdAt(now: Date): Timestamps {
  return { created_date_utc: now.toISOString(), modified_date_utc: neverModified };
}

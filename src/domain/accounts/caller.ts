/** Who is calling: an authenticated account. */
export interface Caller {
  /** `<identity_provider>|<user_guid>`. */
  userId: string;
  /** The account's e-mail, lower case. */
  email: string;
}

/** Lower-cases and trims an e-mail so that grants and lookups agree. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

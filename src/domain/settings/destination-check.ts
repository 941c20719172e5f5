import { ValidationError } from "../../kernel/errors.ts";
import type { Context } from "../context.ts";

/** A URL the service will post to, and the body field that gave it. */
export interface NamedDestination {
  /** The body field, as a 400's issue names it. */
  path: string;
  url: string;
}

/**
 * Refuses a destination the service may not call (docs/design.md §7): not http(s), carrying
 * credentials, or, unless the service allows private destinations, resolving to an address
 * that is not public. W2 checks a webhook's URL with it, and F2 a settings section's, so that
 * both refuse the same URLs with the same 400: `The <what> <problem>`, the issue at `path`.
 * The `Destinations` port does the lookup; the delivery checks again at each attempt.
 */
export async function refuseUncallable(
  ctx: Context,
  what: string,
  destination: NamedDestination,
): Promise<void> {
  const problem = await ctx.destinations.problem(new URL(destination.url));
  if (problem) {
    throw new ValidationError(`The ${what} ${problem}`, [
      { path: destination.path, message: problem },
    ]);
  }
}

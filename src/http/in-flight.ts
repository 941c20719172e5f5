/**
 * The requests a service is answering, so that a stop can let them finish before the store
 * closes (docs/design.md §1), refuse the ones that come after it began, and say which ones
 * it cut off when they took too long (docs/design.md §10).
 */

/** Requests in flight, and whether new ones are still let in. */
export interface InFlightRequests {
  /**
   * Runs `answer` for `request` and counts it until it settles; once `drain` was called,
   * answers `refused()` instead, without running `answer`.
   */
  admit(
    request: Request,
    answer: () => Promise<Response>,
    refused: () => Response,
  ): Promise<Response>;
  /** Lets no more requests in. @returns once every admitted request has settled */
  drain(): Promise<void>;
  /** The requests admitted that have not settled yet. */
  running(): Request[];
}

/** Starts counting. */
export function trackInFlight(): InFlightRequests {
  const open = new Set<Request>();
  let draining = false;
  let drained: (() => void) | undefined;
  const idle = new Promise<void>((resolve) => {
    drained = resolve;
  });
  return {
    // Without `async`: its promise and await would add turns to every request (hot path).
    admit(request, answer, refused) {
      let answering: Promise<Response>;
      if (draining) {
        try {
          return Promise.resolve(refused());
        } catch (error) {
          return Promise.reject(error);
        }
      }
      open.add(request);
      const settled = () => {
        open.delete(request);
        if (draining && open.size === 0) drained?.();
      };
      try {
        answering = answer();
      } catch (error) {
        settled();
        return Promise.reject(error);
      }
      return answering.then(
        (response) => {
          settled();
          return response;
        },
        (error: unknown) => {
          settled();
          throw error;
        },
      );
    },
    drain() {
      draining = true;
      if (open.size === 0) drained?.();
      return idle;
    },
    running: () => [...open],
  };
}

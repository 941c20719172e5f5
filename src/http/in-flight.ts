/**
 * The requests a service is answering, so that a stop can let them finish before the store
 * closes (docs/design.md §1) and refuse the ones that come after it began.
 */

/** Requests in flight, and whether new ones are still let in. */
export interface InFlightRequests {
  /**
   * Runs `answer` and counts it until it settles; once `drain` was called, answers
   * `refused()` instead, without running `answer`.
   */
  admit(answer: () => Promise<Response>, refused: () => Response): Promise<Response>;
  /** Lets no more requests in. @returns once every admitted request has settled */
  drain(): Promise<void>;
}

/** Starts counting. */
export function trackInFlight(): InFlightRequests {
  let open = 0;
  let draining = false;
  let drained: (() => void) | undefined;
  const idle = new Promise<void>((resolve) => {
    drained = resolve;
  });
  return {
    async admit(answer, refused) {
      if (draining) return refused();
      open += 1;
      try {
        return await answer();
      } finally {
        open -= 1;
        if (draining && open === 0) drained?.();
      }
    },
    drain() {
      draining = true;
      if (open === 0) drained?.();
      return idle;
    },
  };
}

// The two classes of `rate-limiter-flexible` the rate limits use, by their own files: the
// package's index loads every store it supports (Redis, Mongo, SQL, …), about 0.4 s of
// start-up, for nothing. Their types are the index's.
declare module "rate-limiter-flexible/lib/RateLimiterMemory.js" {
  import { RateLimiterMemory } from "rate-limiter-flexible";
  export default RateLimiterMemory;
}

declare module "rate-limiter-flexible/lib/RateLimiterRes.js" {
  import { RateLimiterRes } from "rate-limiter-flexible";
  export default RateLimiterRes;
}

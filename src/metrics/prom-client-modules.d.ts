// The four classes of `prom-client` the metrics use, by their own files: the package's index
// also loads the push gateway, the cluster aggregator and the default process metrics,
// about 70 ms of start-up against 10 (docs/design.md §10). Their types are the index's.
declare module "prom-client/lib/registry.js" {
  import { Registry } from "prom-client";
  export default Registry;
}

declare module "prom-client/lib/counter.js" {
  import { Counter } from "prom-client";
  export default Counter;
}

declare module "prom-client/lib/gauge.js" {
  import { Gauge } from "prom-client";
  export default Gauge;
}

declare module "prom-client/lib/histogram.js" {
  import { Histogram } from "prom-client";
  export default Histogram;
}

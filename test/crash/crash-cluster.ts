/**
 * The server processes of an exact crash test: several instances on the same data, picked
 * round-robin by the load, one at a time killed -9 and started again.
 */
import type { StandaloneServer } from "../../bench/standalone-process.ts";

/** Server processes serving the same data: `count` of them, each started by `start`. */
export interface Instances {
  count: number;
  /** Starts instance `index` and waits until it listens. */
  start(index: number): Promise<StandaloneServer>;
}

/** The instances running now; one killed is left out until it listens again. */
export class Cluster {
  private readonly live: (StandaloneServer | undefined)[] = [];
  private turn = 0;
  /** Set by `stop`: an instance that listens after it is stopped at once, never served. */
  private stopped = false;
  /** kill -9s made. */
  kills = 0;
  /** What the instances wrote after they listened (their error log lines), the first 100. */
  readonly logs: string[] = [];

  constructor(private readonly instances: Instances) {}

  /** Starts every instance; when one fails to, the others are kept (for `stop`) and it throws. */
  async start(): Promise<void> {
    const started = await Promise.allSettled(
      Array.from({ length: this.instances.count }, (_, index) => this.launch(index)),
    );
    const failed = started.find((one) => one.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Starts instance `index` in its place, unless the cluster was stopped meanwhile. */
  private async launch(index: number): Promise<void> {
    const server = await this.instances.start(index);
    const keep = (chunk: Buffer) => {
      // Every line but the one each graceful stop prints.
      const lines = String(chunk).split("\n");
      for (const line of lines.filter((one) => one && !one.startsWith("formwork: SIG"))) {
        if (this.logs.length < 100) this.logs.push(`instance ${index}: ${line}`);
      }
    };
    server.child.stdout?.on("data", keep);
    server.child.stderr?.on("data", keep);
    // A test that failed may have stopped the cluster while this one was starting: a server
    // left running then would keep the test process alive for ever.
    if (this.stopped) await stopChild(server, 10_000);
    else this.live[index] = server;
  }

  /** The next live instance, round-robin; `undefined` while none is. */
  pick(): StandaloneServer | undefined {
    const up = this.live.filter((server) => server !== undefined);
    return up[this.turn++ % Math.max(1, up.length)];
  }

  /** Any instance, for setup calls. */
  first(): StandaloneServer {
    const server = this.pick();
    if (!server) throw new Error("no instance is running");
    return server;
  }

  /** kill -9 of instance `index`, then starts it again; the others keep serving meanwhile. */
  async crash(index: number): Promise<void> {
    const server = this.live[index];
    if (!server) return;
    this.live[index] = undefined;
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    this.kills++;
    await exited;
    await this.launch(index);
  }

  /** How many instances serve when none is down. */
  get size(): number {
    return this.instances.count;
  }

  /**
   * Stops every running instance with SIGTERM, and with SIGKILL one still running after
   * `graceMs` (a request that never ends would hold its graceful stop for ever).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    const running = this.live.splice(0).filter((server) => server !== undefined);
    await Promise.all(running.map((server) => stopChild(server, graceMs)));
  }
}

/** SIGTERM, then SIGKILL past `graceMs`; resolves once the process exited. */
async function stopChild({ child }: StandaloneServer, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    progress(`instance ${child.pid} still running ${graceMs} ms after SIGTERM: SIGKILL`);
    child.kill("SIGKILL");
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** With `CRASH_VERBOSE=1`, a line on stderr as the rounds go, to see a run as it goes. */
export function progress(line: string): void {
  if (process.env.CRASH_VERBOSE === "1") process.stderr.write(`crash: ${line}\n`);
}

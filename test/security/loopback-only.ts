/**
 * A test-only safety net: from the call of {@link onlyLoopbackConnections} on, this process
 * opens TCP connections to loopback addresses only. Every `connect` of a `net.Socket`
 * (node:http, node:https and TLS, fetch, all go through it) is checked before any packet is
 * sent: a host that is an IP address must be loopback, and a host name's lookup (the
 * caller's own, e.g. the webhook guard's, or dns.lookup) must answer loopback addresses
 * only. Anything else fails the connection with `ENOTLOOPBACK`, as a refused connection would, and is listed in `refused`,
 * which the tests assert empty. So a test of disguised addresses cannot send a packet off
 * the machine even if the guard under test is broken: the worst a regression does is fail
 * the test. Unix sockets are let through; UDP is not sockets of this kind and nothing here
 * sends any (host names are not looked up beyond `localhost`).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import net, { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** What was stopped: each address a connection was about to reach that is not loopback. */
export interface LoopbackOnly {
  refused: string[];
}

let installed: LoopbackOnly | undefined;

/** Whether an address is loopback: 127.0.0.0/8, ::1 or an IPv4-mapped 127.x. */
function isLoopback(address: string): boolean {
  if (!isIP(address)) return false;
  return ipaddr.process(address).range() === "loopback";
}

/** The refusal a connection fails with. */
function refusal(address: string): NodeJS.ErrnoException {
  installed?.refused.push(address);
  return Object.assign(new Error(`the test's safety net refused ${address}`), {
    code: "ENOTLOOPBACK",
  });
}

type Lookup = NonNullable<net.TcpNetConnectOpts["lookup"]>;

/** `inner`, with every answer that is not loopback turned into an error. */
function loopbackLookup(inner: Lookup): Lookup {
  return (hostname, options, callback) => {
    inner(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const answers = Array.isArray(address)
        ? (address as LookupAddress[]).map((a) => a.address)
        : [address as string];
      const stray = answers.find((a) => !isLoopback(a));
      if (stray !== undefined) return callback(refusal(stray), "", 4);
      callback(null, address, family);
    });
  };
}

/**
 * Installs the net for the rest of the process (once; later calls return the same record).
 * Node's own `normalizeArgs` form (an array as the first argument) and the public ones
 * (`options`, or `port, host`) are both read.
 */
export function onlyLoopbackConnections(): LoopbackOnly {
  if (installed) return installed;
  const record: LoopbackOnly = { refused: [] };
  installed = record;
  const connect = net.Socket.prototype.connect as (...args: unknown[]) => net.Socket;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const normalized = Array.isArray(args[0]) ? (args[0] as unknown[]) : undefined;
    let options: Partial<net.TcpNetConnectOpts> & { path?: string };
    if (normalized) options = normalized[0] as typeof options;
    else if (typeof args[0] === "object" && args[0] !== null) options = args[0] as typeof options;
    else if (typeof args[0] === "string") options = { path: args[0] };
    else options = { port: Number(args[0]), host: typeof args[1] === "string" ? args[1] : "" };
    if (options.path) return connect.apply(this, args);
    const host = options.host || "localhost";
    if (isIP(host)) {
      if (isLoopback(host)) return connect.apply(this, args);
      // As a connection that failed: the socket errors on the next tick, nothing is sent.
      const error = refusal(host);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    const guarded = { ...options, host, lookup: loopbackLookup(options.lookup ?? dnsLookup) };
    if (normalized) {
      normalized[0] = guarded;
      return connect.apply(this, args);
    }
    const callback = args.find((arg) => typeof arg === "function");
    return connect.apply(this, callback ? [guarded, callback] : [guarded]);
  } as typeof net.Socket.prototype.connect;
  return record;
}

/**
 * A slow client on a raw `node:net` socket: it connects and then stalls or trickles, never
 * finishing its request, and never closes the socket itself. Only the server can end it.
 */
import { connect } from "node:net";

/** How the client misbehaves. */
export type Slowness =
  /** Connects and sends nothing. */
  | "idle"
  /** Sends a request line and then a header line now and then, never ending the headers. */
  | "trickled-headers"
  /** Sends whole headers announcing a body, a byte of it, then nothing. */
  | "stalled-body"
  /** Sends whole headers announcing a body, then a byte of it now and then. */
  | "trickled-body";

/** What the server did to a slow client. */
export interface SlowOutcome {
  /** What the server sent before closing, as text. */
  received: string;
}

/**
 * Opens a slow client to `port` on `path` with `headers`.
 * @returns once the server has closed the connection.
 */
export function slowClient(
  port: number,
  slowness: Slowness,
  path: string,
  headers: Record<string, string> = {},
): Promise<SlowOutcome> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let timer: NodeJS.Timeout | undefined;
    const every = (ms: number, send: () => string) => {
      timer = setInterval(() => {
        if (socket.writable) socket.write(send());
      }, ms);
    };
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    // A reset by the server is one way of closing; `close` follows it.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ received });
    });
    socket.on("connect", () => {
      if (slowness === "idle") return;
      const lines = [`POST ${path} HTTP/1.1`, "Host: 127.0.0.1"];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      if (slowness === "trickled-headers") {
        socket.write(`${lines.join("\r\n")}\r\n`);
        let n = 0;
        every(100, () => `X-Slow-${n++}: a\r\n`);
        return;
      }
      lines.push("Content-Type: application/json", "Content-Length: 100000");
      socket.write(`${lines.join("\r\n")}\r\n\r\n{`);
      if (slowness === "trickled-body") every(100, () => " ");
    });
  });
}

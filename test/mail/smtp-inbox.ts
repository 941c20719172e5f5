import { once } from "node:events";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One message as a test SMTP server received it. */
export interface Received {
  /** The envelope recipients (`RCPT TO`). */
  rcptTo: string[];
  mail: ParsedMail;
}

/** Options of {@link startInbox}. */
export interface InboxOptions {
  /** Require this user and password (AUTH PLAIN/LOGIN over plain text). */
  auth?: { user: string; pass: string };
  /** Recipients the server refuses with a 550. */
  refuse?: string[];
  /** The port to listen on. @default a free one */
  port?: number;
  /** Milliseconds to wait, after the message arrived, before answering it (accepted). */
  answerAfterMs?: number;
}

/** A real SMTP server on a free local port, without STARTTLS, that keeps what it receives. */
export async function startInbox(options: InboxOptions = {}) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const { user, pass } = options.auth ?? {};
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.includes(address.address)) {
        callback(Object.assign(new Error("No such user"), { responseCode: 550 }));
      } else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), mail });
          for (const wake of waiters.splice(0)) wake();
          setTimeout(callback, options.answerAfterMs ?? 0);
        },
        (error: Error) => callback(error),
      );
    },
  });
  // A sender killed mid-session (the crash tests kill -9 servers) resets its connection: no
  // failure of the inbox. Without a listener, smtp-server's "error" event would throw.
  server.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "ECONNRESET" && error.code !== "EPIPE") throw error;
  });
  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server.server, "listening");
  const { port } = server.server.address() as AddressInfo;
  const credentials = options.auth ? `${options.auth.user}:${options.auth.pass}@` : "";
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    port,
    received,
    /** Resolves once `count` messages have arrived; rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = end - Date.now();
        if (left <= 0) throw new Error(`got ${received.length} of ${count} messages`);
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, left);
          waiters.push(() => {
            clearTimeout(timer);
            wake();
          });
        });
      }
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** A TCP server that accepts connections and never says a word: an SMTP server hung. */
export async function startSilentServer() {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** The URL of a local port where nothing listens: an SMTP server down. */
export async function downServerUrl() {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return `smtp://127.0.0.1:${port}`;
}

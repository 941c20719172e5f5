/**
 * The webhook receiver of the benches in a process of its own (`loopback-receiver.ts`), so
 * that its work is not counted as the server's, and the secret the benches' webhooks sign with.
 */
import { fork } from "node:child_process";

export const webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/**
 * Starts the receiver. `ask` sends it a message (`{}`, `{ reset: true }`, `{ delayMs }`) and
 * resolves how many requests it has received.
 */
export async function startReceiver() {
  const child = fork(new URL("./loopback-receiver.ts", import.meta.url).pathname, {
    execArgv: ["--import", "tsx"],
  });
  const url = await new Promise<string>((resolve) =>
    child.once("message", (m: { url: string }) => resolve(m.url)),
  );
  const ask = (message: object) =>
    new Promise<number>((resolve) => {
      child.once("message", (m: { received: number }) => resolve(m.received));
      child.send(message);
    });
  return { url, ask, stop: () => child.kill() };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

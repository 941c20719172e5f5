/**
 * Azurite's blob service for tests: started by `examples/azure/emulators.ts` (in memory, on a
 * free loopback port), stopped again after the test file, and killed if the process exits
 * first.
 */
import { after } from "node:test";
import { type Azurite, startAzurite as start } from "../../examples/azure/emulators.ts";

export { type Azurite, devAccount } from "../../examples/azure/emulators.ts";

/** Starts Azurite's blob service; it is stopped after the test file. */
export async function startAzurite(): Promise<Azurite> {
  const azurite = await start();
  const killOnExit = () => azurite.kill();
  process.once("exit", killOnExit);
  after(async () => {
    process.off("exit", killOnExit);
    await azurite.stop();
  });
  return azurite;
}

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readAzureConfig } from "../../examples/azure/config.ts";

const complete = {
  COSMOS_ENDPOINT: "https://account.documents.azure.com:443/",
  COSMOS_KEY: "a2V5",
  COSMOS_DATABASE: "forms",
  AZURE_STORAGE_CONNECTION_STRING: "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=a2V5",
};

describe("the Azure server's configuration", () => {
  it("reads the Azure variables beside the standalone server's", () => {
    const config = readAzureConfig({ ...complete, PORT: "8080", TRUST_PROXY: "1" });
    assert.equal(config.cosmosEndpoint, complete.COSMOS_ENDPOINT);
    assert.equal(config.cosmosDatabase, "forms");
    assert.equal(config.cosmosContainer, "formwork");
    assert.equal(config.customerTokenSecret, undefined);
    assert.equal(config.trustProxy, true);
    assert.equal(config.port, 8080);
    assert.equal(config.cosmosEndpointDiscovery, true);
  });

  it("turns the SDK's endpoint discovery off with COSMOS_ENDPOINT_DISCOVERY=0", () => {
    const off = readAzureConfig({ ...complete, COSMOS_ENDPOINT_DISCOVERY: "0" });
    assert.equal(off.cosmosEndpointDiscovery, false);
    assert.equal(
      readAzureConfig({ ...complete, COSMOS_ENDPOINT_DISCOVERY: "1" }).cosmosEndpointDiscovery,
      true,
    );
    assert.throws(
      () => readAzureConfig({ ...complete, COSMOS_ENDPOINT_DISCOVERY: "off" }),
      /^Error: COSMOS_ENDPOINT_DISCOVERY must be 0 or 1, not "off"/,
    );
  });

  it("names the variable that is missing or wrong", () => {
    for (const name of Object.keys(complete)) {
      const env: Record<string, string> = { ...complete };
      delete env[name];
      assert.throws(() => readAzureConfig(env), new RegExp(`^Error: ${name} must be set`));
    }
    assert.throws(
      () => readAzureConfig({ ...complete, COSMOS_ENDPOINT: "not a url" }),
      /COSMOS_ENDPOINT must be a URL/,
    );
  });

  it("takes COSMOS_REQUEST_TIMEOUT_MS as a whole, positive number of milliseconds", () => {
    assert.equal(readAzureConfig(complete).cosmosRequestTimeoutMs, 10_000);
    const set = readAzureConfig({ ...complete, COSMOS_REQUEST_TIMEOUT_MS: "60000" });
    assert.equal(set.cosmosRequestTimeoutMs, 60_000);
    for (const wrong of ["0", "-1", "1.5", "soon"]) {
      assert.throws(
        () => readAzureConfig({ ...complete, COSMOS_REQUEST_TIMEOUT_MS: wrong }),
        /^Error: COSMOS_REQUEST_TIMEOUT_MS must be/,
        wrong,
      );
    }
  });
});

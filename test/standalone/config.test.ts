import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readConfig } from "../../examples/standalone/config.ts";

describe("standalone server configuration", () => {
  it("has the defaults of the design", () => {
    const config = readConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.publicUrl, "http://localhost:3000");
    assert.match(config.dataDir, /data$/);
    assert.equal(config.adminSecret, undefined);
  });

  it("reads the environment and refuses nonsense with the variable's name", () => {
    const config = readConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      PUBLIC_URL: "https://forms.example.com/",
      ADMIN_SECRET: "s",
    });
    assert.equal(config.publicUrl, "https://forms.example.com");
    assert.equal(config.adminSecret, "s");
    assert.throws(() => readConfig({ PORT: "eighty" }), /PORT/);
    assert.throws(() => readConfig({ PORT: "70000" }), /PORT/);
    assert.throws(() => readConfig({ PUBLIC_URL: "not a url" }), /PUBLIC_URL/);
  });
});

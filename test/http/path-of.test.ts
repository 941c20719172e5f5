/** `pathOf` (src/routes/route-request.ts) reads the path of a request's URL as `URL` does. */
import assert from "node:assert/strict";
import { it } from "node:test";
import { pathOf } from "../../src/routes/route-request.ts";

it("reads the same path as new URL(url).pathname from a request's URL", () => {
  const urls = [
    "http://localhost/api/form/abc/submission",
    "http://127.0.0.1:8080/api/form/abc/submission?x=1&y=/z",
    "https://example.com/forms/api/form/abc/submission#part?no",
    "http://[::1]:3000/f/abc?q#h",
    "http://example.com",
    "http://example.com/a/../b/./c",
    "http://example.com/%41%2F%zz/é",
    "http://example.com/p//q?r",
  ];
  for (const url of urls) {
    // As hosts hand it over: a Request's url is the serialized URL.
    const serialized = new Request(url).url;
    assert.equal(pathOf(serialized), new URL(serialized).pathname, serialized);
  }
});

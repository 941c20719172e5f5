/** The package's version, as in package.json (test/openapi/document.test.ts checks it). */
export const packageVersion = "0.1.0";

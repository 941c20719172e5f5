#!/usr/bin/env node
// The `formwork` command: the bundle `npm pack` builds (examples/standalone/cli.ts).
import "../dist/standalone/cli.js";

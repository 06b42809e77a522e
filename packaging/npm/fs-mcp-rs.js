#!/usr/bin/env node
// The `fs-mcp-rs` command of the npm package: starts the binary from this platform's package
// (an optional dependency npm installed for this os and cpu only) with the same arguments and
// standard streams, passes on the signals a client stops it with, and exits as it exits.
// Prints nothing on stdout: in stdio mode that stream is the server's JSON-RPC.
"use strict";

const { spawn } = require("node:child_process");

// Filled in by `cargo xtask dist` from the release targets: "os cpu" -> platform package.
const PLATFORM_PACKAGES = __PLATFORM_PACKAGES__;

function fail(message) {
  process.stderr.write(`fs-mcp-rs: ${message}\n`);
  process.exit(1);
}

const key = `${process.platform} ${process.arch}`;
const pkg = PLATFORM_PACKAGES[key];
if (!pkg) {
  fail(
    `no prebuilt binary for ${key} (there are: ${Object.keys(PLATFORM_PACKAGES).join(", ")}); ` +
      "build it from source with `cargo install --locked --path .` in a clone of the repository"
  );
}

let binary;
try {
  binary = require.resolve(`${pkg}/bin/fs-mcp-rs`);
} catch {
  fail(
    `the package ${pkg}, which holds the binary for ${key}, is not installed: ` +
      "install fs-mcp-rs again without --omit=optional (or --no-optional)"
  );
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });

const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => child.kill(signal));
}

child.on("error", (error) => fail(`cannot start ${binary}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the client sees what the server saw.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});

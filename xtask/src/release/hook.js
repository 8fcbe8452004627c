#!/usr/bin/env node
// The npm package's `hook`, where its shell launcher (bin/hook) did not find the platform package where npm puts it:
// finds the binary of this platform's package (an optional dependency that npm installs only where its `os` and
// `cpu` match) with Node's module resolution and runs it with this process's arguments and standard streams, then
// ends as it ended: with its exit status, or killed by the same signal. Nothing is downloaded and no install script
// runs. Written by `cargo xtask release` (xtask/src/release/hook.js).
'use strict';

const { spawn } = require('node:child_process');
const platforms = require('./platforms.json');

const key = `${process.platform}-${process.arch}`;
const name = platforms[key];
if (!name) {
  const known = Object.keys(platforms).join(', ');
  process.stderr.write(`hook: error: no prebuilt hook for ${key} (there is one for ${known}); build it from source: cargo install hook-cli\n`);
  process.exit(1);
}

let binary;
try {
  binary = require.resolve(`${name}/bin/hook`);
} catch {
  process.stderr.write(`hook: error: the package ${name}, which holds hook for ${key}, is not installed: npm leaves optional dependencies out with --omit=optional or --no-optional; reinstall without it (npm install -g hook-engine)\n`);
  process.exit(1);
}

// `hook install` compares `hook` on PATH with the binary that runs: the launcher that started this is how npm puts
// it on PATH.
const env = { ...process.env, HOOK_LAUNCHER: process.env.HOOK_LAUNCHER || process.argv[1] };
const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit', env });

// A signal sent to this process alone (an agent ending its hook) reaches the binary too.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
for (const signal of forwarded) {
  process.on(signal, () => child.kill(signal));
}

child.on('error', (err) => {
  process.stderr.write(`hook: error: cannot start ${binary}: ${err.message}\n`);
  process.exit(1);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so that the caller sees what its shell would have seen.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    // A signal whose default action is not to end the process.
    process.exit(128 + (require('node:os').constants.signals[signal] || 0));
  }
  process.exit(code ?? 1);
});

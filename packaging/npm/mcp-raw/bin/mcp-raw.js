#!/usr/bin/env node
// The `mcp-raw` command of the npm package: finds the prebuilt binary that npm
// installed for this platform (the optional dependency `@mcp-raw/<platform>-<arch>`,
// whose package.json `os` and `cpu` fields let npm skip the others) and runs it.
//
// MCP over stdio travels through this process's streams, so the binary gets them
// as they are (`stdio: 'inherit'`: the same descriptors, nothing read, buffered or
// re-encoded here). Its arguments go through untouched, SIGINT, SIGTERM and SIGHUP
// sent to this process are sent on to it, and this process ends as it ended: with
// its exit status, or killed by the same signal. Plain Node, no dependencies.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');

const manifest = require('../package.json');
const platform = `${process.platform}-${process.arch}`;
const name = `@mcp-raw/${platform}`;

function fail(why) {
  process.stderr.write(
    `mcp-raw: ${why}\n` +
      'Install it another way:\n' +
      '  cargo install mcp-raw            (builds it; needs Rust 1.88 or later)\n' +
      '  cargo binstall mcp-raw           (a prebuilt binary from the release page)\n' +
      '  or download it from the release page and put it on your PATH.\n',
  );
  process.exit(1);
}

if (!Object.hasOwn(manifest.optionalDependencies || {}, name)) {
  fail(`no prebuilt binary is published for ${platform} (there are: ${
    Object.keys(manifest.optionalDependencies || {}).map((n) => n.split('/')[1]).join(', ')
  }).`);
}

let binary;
try {
  const dir = path.dirname(require.resolve(`${name}/package.json`));
  binary = path.join(dir, 'bin', process.platform === 'win32' ? 'mcp-raw.exe' : 'mcp-raw');
} catch {
  fail(
    `the package ${name}, which holds the binary for ${platform}, is not installed ` +
      '(npm skips optional dependencies under --no-optional or --omit=optional; reinstall without it).',
  );
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });

// A signal sent to this process (by a client stopping its server, or `kill`) goes on to
// the binary, which decides what it means. Ctrl-C in a terminal reaches both already
// (one process group), so the binary then sees SIGINT twice.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const relay = (signal) => {
  if (child.pid !== undefined) child.kill(signal);
};
for (const signal of forwarded) process.on(signal, relay);

child.on('error', (err) => {
  fail(`cannot run ${binary}: ${err.message}`);
});

child.on('exit', (code, signal) => {
  for (const s of forwarded) process.off(s, relay);
  if (signal) {
    // Die of the same signal, so whoever started us sees what a direct start shows.
    process.kill(process.pid, signal);
    // A signal whose default action is not to end the process (or one ignored here).
    process.exit(128 + (require('node:os').constants.signals[signal] || 0));
  }
  process.exit(code);
});

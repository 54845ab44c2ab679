// Node preload for the conformance suite (NODE_OPTIONS="--require <this file>").
//
// In client mode the suite starts mock MCP/authorization servers with `listen(0)` and no
// host, which makes Node bind every interface. This file pins such listeners to 127.0.0.1
// so a run never exposes a port to the network.
//
// Why hook `_listen2` rather than `listen`: the suite reads `server.address()` right after
// `listen(0)`, so the bind must stay synchronous. `listen(port, host)` would defer the bind
// behind a DNS lookup. Every TCP `listen()` (net and http alike) ends in the synchronous
// `Server.prototype._listen2(address, port, addressType, backlog, fd, flags)`; Node keeps
// that name so code can wrap it. `address` is null there when no host was given.
'use strict';
const net = require('net');

const ANY_ADDRESS = new Set([null, undefined, '', '0.0.0.0', '::']);
const original = net.Server.prototype._listen2;

net.Server.prototype._listen2 = function loopbackListen2(address, port, addressType, ...rest) {
  // Port -1 means a pipe, an inherited handle or an fd: nothing to rebind.
  const [, fd] = rest;
  if (port >= 0 && fd == null && ANY_ADDRESS.has(address)) {
    return original.call(this, '127.0.0.1', port, 4, ...rest);
  }
  return original.call(this, address, port, addressType, ...rest);
};

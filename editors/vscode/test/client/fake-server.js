// A stand-in for `contrib lsp` used by smoke.js: it answers `initialize` and
// `shutdown`, and appends every method it receives (and its argv) to $FAKE_LOG.
'use strict';
const fs = require('fs');
const rpc = require('vscode-jsonrpc/node');

const log = (line) => fs.appendFileSync(process.env.FAKE_LOG, line + '\n');
log('argv ' + JSON.stringify(process.argv.slice(2)));

const conn = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);
conn.onRequest((method) => {
  log('request ' + method);
  if (method === 'initialize') return { capabilities: { textDocumentSync: 1 } };
  return null;
});
conn.onNotification((method, params) => {
  log('notification ' + method + (method === 'workspace/didChangeWatchedFiles' ? ' ' + JSON.stringify(params) : ''));
  if (method === 'exit') process.exit(0);
});
conn.listen();

// Smoke test of extension.js without VS Code: a minimal stand-in for the
// `vscode` module is injected, `contrib.path` points at a fake server, and the
// test checks that the extension
//   * starts `<contrib.path> lsp` and completes the LSP handshake,
//   * forwards changes to contrib.toml as workspace/didChangeWatchedFiles,
//   * restarts the server with the new binary when `contrib.path` changes,
//   * reports a missing binary with an error message instead of crashing,
//   * shuts the server down cleanly on deactivate.
// Run with `node test/client/smoke.js` (part of `npm test`).
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');

const EXT = path.resolve(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contrib-vscode-smoke-'));
const logFile = path.join(tmp, 'server.log');
fs.writeFileSync(logFile, '');
process.env.FAKE_LOG = logFile;

// Two executables, so that a restart visibly switches binaries.
function fakeBinary(name) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, `#!/bin/sh\necho "${name}" >> "$FAKE_LOG"\nexec "${process.execPath}" "${path.join(__dirname, 'fake-server.js')}" "$@"\n`);
  fs.chmodSync(file, 0o755);
  return file;
}
const binA = fakeBinary('contrib-a');
const binB = fakeBinary('contrib-b');

// ---- a minimal `vscode` module ---------------------------------------------
class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (listener, thisArg, disposables) => {
      const f = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.push(f);
      const d = { dispose: () => { this.listeners = this.listeners.filter((x) => x !== f); } };
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(e) { for (const l of this.listeners.slice()) l(e); }
  dispose() { this.listeners = []; }
}
// Unknown members (the client registers many providers) become no-op functions
// that return a disposable and can also be used as events.
function anything() {
  return new Proxy(function () { return { dispose() {} }; }, {
    get(_t, p) { return p === 'then' ? undefined : anything(); },
  });
}
const withFallback = (obj) => new Proxy(obj, { get: (t, p) => (p in t ? t[p] : anything()) });
const Uri = {
  file: (p) => ({ scheme: 'file', fsPath: p, path: p, toString: () => 'file://' + p }),
  parse: (s) => ({ scheme: s.split(':')[0], fsPath: s.replace(/^file:\/\//, ''), path: s.replace(/^file:\/\//, ''), toString: () => s }),
};
const settings = { 'contrib.path': binA, 'contrib.trace.server': 'off' };
const configChanged = new EventEmitter();
const watchers = [];
const errors = [];
const vscode = withFallback({
  version: '1.75.0',
  Uri,
  EventEmitter,
  env: { language: 'en', appName: 'smoke', machineId: 'm', sessionId: 's', uiKind: 1 },
  UIKind: { Desktop: 1, Web: 2 },
  workspace: withFallback({
    workspaceFolders: [{ uri: Uri.file(tmp), name: 'smoke', index: 0 }],
    textDocuments: [],
    getConfiguration: (section) => ({
      get: (key, def) => { const k = section ? `${section}.${key}` : key; return k in settings ? settings[k] : def; },
      has: () => false,
      inspect: () => undefined,
      update: () => Promise.resolve(),
    }),
    onDidChangeConfiguration: configChanged.event,
    createFileSystemWatcher(glob) {
      const w = { glob, created: new EventEmitter(), changed: new EventEmitter(), deleted: new EventEmitter(), dispose() {} };
      w.onDidCreate = w.created.event;
      w.onDidChange = w.changed.event;
      w.onDidDelete = w.deleted.event;
      watchers.push(w);
      return w;
    },
    getWorkspaceFolder: () => undefined,
  }),
  window: withFallback({
    createOutputChannel: (name) => ({ name, append() {}, appendLine() {}, show() {}, clear() {}, replace() {}, dispose() {} }),
    showErrorMessage: (msg) => { errors.push(msg); return Promise.resolve(undefined); },
    showWarningMessage: () => Promise.resolve(undefined),
    showInformationMessage: () => Promise.resolve(undefined),
    visibleTextEditors: [],
  }),
  commands: withFallback({
    registered: {},
    registerCommand(id, f) { this.registered[id] = f; return { dispose() {} }; },
    executeCommand: () => Promise.resolve(),
  }),
  languages: withFallback({
    createDiagnosticCollection: (name) => ({ name, set() {}, delete() {}, clear() {}, forEach() {}, get() {}, has: () => false, dispose() {} }),
    match: () => 0,
  }),
  extensions: { getExtension: () => undefined, all: [] },
});
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };

// ---- the test ----------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const serverLog = () => fs.readFileSync(logFile, 'utf8');
async function waitFor(what, pred, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for: ${what}\nserver log:\n${serverLog()}`);
}
const count = (re) => (serverLog().match(re) || []).length;

async function main() {
  const ext = require(path.join(EXT, 'extension.js'));
  const context = { subscriptions: [], extensionPath: EXT, extensionUri: Uri.file(EXT) };
  await ext.activate(context);

  await waitFor('first server initialized', () => /contrib-a\nargv \["lsp"\]\nrequest initialize\nnotification initialized/.test(serverLog()));
  assert.ok(vscode.commands.registered['contrib.restartServer'], 'restart command registered');

  const watcher = watchers.find((w) => w.glob === '**/contrib.toml');
  assert.ok(watcher, 'a **/contrib.toml watcher is created');
  watcher.changed.fire(Uri.file(path.join(tmp, 'contrib.toml')));
  await waitFor('didChangeWatchedFiles for contrib.toml', () => /workspace\/didChangeWatchedFiles .*contrib\.toml","type":2/.test(serverLog()));

  settings['contrib.path'] = binB;
  configChanged.fire({ affectsConfiguration: (s) => s === 'contrib' || s === 'contrib.path' });
  await waitFor('restart with the new binary', () => /contrib-b\nargv \["lsp"\]\nrequest initialize/.test(serverLog()));
  assert.strictEqual(count(/request shutdown/g), 1, 'old server was shut down before the restart');

  settings['contrib.path'] = path.join(tmp, 'does-not-exist');
  configChanged.fire({ affectsConfiguration: (s) => s === 'contrib.path' });
  await waitFor('error message for a missing binary', () => errors.some((e) => e.includes('does-not-exist')));
  assert.strictEqual(count(/request shutdown/g), 2, 'second server was shut down');

  settings['contrib.path'] = binA;
  await vscode.commands.registered['contrib.restartServer']();
  await waitFor('restart command starts the server again', () => count(/request initialize/g) === 3);

  await ext.deactivate();
  await waitFor('clean shutdown on deactivate', () => count(/notification exit/g) === 3);
}

main().then(
  () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log('client smoke test: 1 passed, 0 failed');
    process.exit(0);
  },
  (err) => {
    console.error(err && err.stack ? err.stack : err);
    console.log('client smoke test: 0 passed, 1 failed');
    process.exit(1);
  },
);

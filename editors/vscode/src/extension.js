// VS Code client for the contrib language server (`contrib lsp`, LSP over stdio),
// and the `contrib` task type (see tasks.js).
//
// Plain JavaScript with JSDoc types: esbuild bundles it with the language
// client into dist/extension.js (scripts/build.mjs); there is no compile step.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { registerTasks } = require('./tasks');
const { registerPreview } = require('./preview');

const CLIENT_ID = 'contrib'; // the client reads `contrib.trace.server` from this id
const CLIENT_NAME = 'contrib language server';

/** @type {LanguageClient | undefined} */
let client;
/** @type {vscode.LogOutputChannel | undefined} */
let outputChannel;
/** Settings whose change restarts the server. */
const RESTART_ON = ['contrib.path', 'contrib.ruleDocsUrl'];

/** @type {vscode.FileSystemWatcher | undefined} */
let manifestWatcher;
/** Serialises start/stop/restart so that rapid setting changes do not race. */
let pending = Promise.resolve();

/**
 * The configured binary, with `~` and `${workspaceFolder}` expanded.
 * A bare name such as `contrib` is looked up on PATH when the server is spawned.
 */
function configuredCommand() {
  const raw = vscode.workspace.getConfiguration('contrib').get('path', 'contrib');
  let cmd = typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : 'contrib';
  if (cmd === '~' || cmd.startsWith('~/') || cmd.startsWith('~\\')) {
    cmd = path.join(os.homedir(), cmd.slice(1));
  }
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (folder) {
    cmd = cmd.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
  }
  if (folder && !path.isAbsolute(cmd) && /[\\/]/.test(cmd)) {
    // A relative path such as `./target/debug/contrib` is taken from the workspace root.
    cmd = path.join(folder.uri.fsPath, cmd);
  }
  return cmd;
}

/** Best-effort check that `cmd` can be executed, so the user gets a clear message. */
function commandExists(cmd) {
  const isFile = (p) => {
    try {
      return fs.statSync(p).isFile();
    } catch (_) {
      return false;
    }
  };
  if (path.isAbsolute(cmd) || /[\\/]/.test(cmd)) {
    return isFile(cmd) || (process.platform === 'win32' && isFile(cmd + '.exe'));
  }
  const exts = process.platform === 'win32'
    ? (process.env.PATHEXT || '.EXE;.CMD;.BAT').split(';').concat([''])
    : [''];
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      if (isFile(path.join(dir, cmd + ext))) return true;
    }
  }
  return false;
}

/** What the server reads from `initialize`: see `contrib lsp`'s documentation. */
function initializationOptions() {
  const template = vscode.workspace.getConfiguration('contrib').get('ruleDocsUrl', null);
  return typeof template === 'string' && template.trim() !== '' ? { ruleDocsUrl: template.trim() } : {};
}

/**
 * Other tools' files the server checks in place: Agent Skills, Claude Code,
 * Codex, Cursor and Agent Plugins manifests, agents, commands, hooks, MCP
 * configurations, Copilot agents, prompt files, chat modes and
 * instructions, Cursor rules, instruction files.
 */
const SOURCE_PATTERNS = [
  '**/SKILL.md',
  '**/{agents,commands}/*.md',
  '**/.github/agents/*.md',
  '**/*.{agent,prompt,chatmode,instructions}.md',
  '**/{AGENTS,CLAUDE,GEMINI}.md',
  '**/.github/copilot-instructions.md',
  '**/.claude/rules/**/*.md',
  '**/*.mdc',
  '**/{plugin,mcp,.mcp,gemini-extension,manifest}.json',
  '**/{hooks,.github/hooks}/*.json',
  '**/.claude/settings*.json',
];

function createClient(command) {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  /** @type {import('vscode-languageclient/node').ServerOptions} */
  const executable = {
    command,
    args: ['lsp'],
    options: folder ? { cwd: folder.uri.fsPath } : {},
  };
  const serverOptions = { run: executable, debug: executable };

  /** @type {import('vscode-languageclient').LanguageClientOptions} */
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'contrib' },
      { scheme: 'untitled', language: 'contrib' },
      // Other tools' files, which the server checks in place as `contrib
      // check` checks their plugin's folder (saved files only: the folder
      // around them gives them their meaning).
      ...SOURCE_PATTERNS.map((pattern) => ({ scheme: 'file', pattern })),
    ],
    synchronize: {
      // Project configuration lives in contrib.toml; tell the server when it changes.
      fileEvents: manifestWatcher,
    },
    outputChannel,
    initializationOptions: initializationOptions(),
  };

  return new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
}

async function stopClient() {
  const old = client;
  client = undefined;
  if (!old) return;
  try {
    // dispose() stops the server (shutdown + exit) if it is running.
    await old.dispose();
  } catch (err) {
    // A client whose start failed cannot be stopped; there is nothing left to clean up.
    if (outputChannel) {
      outputChannel.appendLine(`Stopping the server: ${err && err.message ? err.message : err}`);
    }
  }
}

async function startClient() {
  const command = configuredCommand();
  if (!commandExists(command)) {
    const choice = await vscode.window.showErrorMessage(
      `contrib: cannot find the \`${command}\` binary, so the language server is not running. ` +
        'Install it with `cargo install --path .` from the contrib repository, or set `contrib.path`.',
      'Open Settings',
      'Retry',
    );
    if (choice === 'Open Settings') {
      vscode.commands.executeCommand('workbench.action.openSettings', 'contrib.path');
    } else if (choice === 'Retry') {
      restart();
    }
    return;
  }
  const next = createClient(command);
  client = next;
  outputChannel.appendLine(`Starting \`${command} lsp\``);
  try {
    await next.start();
  } catch (err) {
    outputChannel.appendLine(`Starting \`${command} lsp\` failed: ${err && err.message ? err.message : err}`);
    vscode.window.showErrorMessage(`contrib: failed to start \`${command} lsp\` (see the "contrib" output).`);
  }
}

/** Queue a restart (stop, then start with the current settings). */
function restart() {
  pending = pending.then(stopClient).then(startClient, startClient);
  return pending;
}

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  // A log channel: the language client sets its trace by the channel's level.
  outputChannel = vscode.window.createOutputChannel('contrib', { log: true });
  manifestWatcher = vscode.workspace.createFileSystemWatcher('**/contrib.toml');
  context.subscriptions.push(outputChannel, manifestWatcher);

  context.subscriptions.push(
    vscode.commands.registerCommand('contrib.restartServer', () => restart()),
    registerTasks(configuredCommand),
    registerPreview(() => client),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const changed = RESTART_ON.find((setting) => event.affectsConfiguration(setting));
      if (changed) {
        outputChannel.appendLine(`\`${changed}\` changed; restarting the language server.`);
        restart();
      }
    }),
  );

  pending = pending.then(startClient);
  return pending;
}

function deactivate() {
  pending = pending.then(stopClient);
  return pending;
}

module.exports = { activate, deactivate };

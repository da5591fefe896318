// "Show What the Model Is Told": a webview beside the manifest showing what
// the model is told for it (the system prompt by placement with its cache
// breakpoints, the opening, a few turns' notes), from the language server's
// `contrib/preview` request, updated as the person types.
//
// The page comes from the server with its own Content-Security-Policy (no
// script, nothing loaded); the webview runs no script either.
'use strict';

const vscode = require('vscode');

const METHOD = 'contrib/preview';
/** How long typing must pause before the preview is asked for again. */
const DEBOUNCE_MS = 300;

/**
 * @param {() => import('vscode-languageclient/node').LanguageClient | undefined} getClient
 * @returns {vscode.Disposable}
 */
function registerPreview(getClient) {
  /** @type {vscode.WebviewPanel | undefined} */
  let panel;
  /** @type {vscode.Uri | undefined} */
  let shown;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;

  const session = () => {
    const value = vscode.workspace.getConfiguration('contrib').get('preview.session', null);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };

  async function refresh() {
    const client = getClient();
    if (!panel || !shown || !client) return;
    try {
      const answer = await client.sendRequest(METHOD, {
        textDocument: { uri: shown.toString() },
        session: session(),
      });
      if (!panel) return;
      if (!answer) {
        panel.webview.html = message('The language server has not opened this manifest yet.');
      } else if (answer.problem) {
        panel.webview.html = message(answer.problem);
      } else {
        panel.title = answer.title;
        panel.webview.html = answer.html;
      }
    } catch (err) {
      if (panel) panel.webview.html = message(`The preview failed: ${err && err.message ? err.message : err}`);
    }
  }

  function schedule() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }

  const show = vscode.commands.registerCommand('contrib.showPreview', () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'contrib') {
      vscode.window.showInformationMessage('contrib: open a .contrib manifest to see what the model is told.');
      return;
    }
    shown = editor.document.uri;
    if (!panel) {
      panel = vscode.window.createWebviewPanel(
        'contribPreview',
        'What the model is told',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false, localResourceRoots: [] },
      );
      panel.onDidDispose(() => {
        panel = undefined;
      });
    } else {
      panel.reveal(vscode.ViewColumn.Beside, true);
    }
    refresh();
  });

  const typed = vscode.workspace.onDidChangeTextDocument((event) => {
    if (shown && event.document.uri.toString() === shown.toString()) schedule();
  });
  const switched = vscode.window.onDidChangeActiveTextEditor((editor) => {
    if (panel && editor && editor.document.languageId === 'contrib') {
      shown = editor.document.uri;
      schedule();
    }
  });

  return vscode.Disposable.from(show, typed, switched, {
    dispose() {
      if (timer) clearTimeout(timer);
      if (panel) panel.dispose();
    },
  });
}

/** A page holding one message, escaped. */
function message(text) {
  const escaped = String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html><html lang="en"><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><meta charset="utf-8"></head><body><p>${escaped}</p></body></html>`;
}

module.exports = { registerPreview, METHOD };

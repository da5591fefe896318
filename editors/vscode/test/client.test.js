// The packaged extension (dist/extension.js: our code and the real
// vscode-languageclient, as esbuild bundled them) against the real
// `contrib lsp`. Only the `vscode` module is a stand-in (support/vscode.js):
// every request goes through the client's own middleware and protocol
// converters to the server and back, as in VS Code.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { createVscode, install, Position, Uri } = require('./support/vscode');
const { REPOSITORY, findContrib, workspace } = require('./support/contrib');

const { binary, skip } = findContrib();
const cargo = fs.readFileSync(path.join(REPOSITORY, 'Cargo.toml'), 'utf8');
const crate = {
  repository: /^repository = "(.*)"$/m.exec(cargo)[1],
  version: /^version = "(.*)"$/m.exec(cargo)[1],
};

// A manifest kept minimal on purpose: the language is being revised, and
// this tests the editor plumbing, not the language.
const MISSPELT = `plugin acme/vscode-test 1.0.0 {
    owner agent-author

    text stance {
        placement agent
        budgt 400 tokens
        body "Challenge premises."
    }
}
`;
const OVER_BUDGETED = MISSPELT.replace('budgt', 'budget');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what, predicate, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** An executable that logs each start (its name, process id and arguments)
 * and becomes the real binary. */
function wrapper(dir, name, log) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\necho "${name} $$ $*" >> "${log}"\nexec "${binary}" "$@"\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

test('the extension drives the real contrib lsp', { skip, timeout: 120000 }, async (t) => {
  const dir = workspace({ 'contrib.toml': '' });
  const log = path.join(dir, 'starts.log');
  fs.writeFileSync(log, '');
  const lines = () => fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
  const starts = () => lines().map((line) => line.replace(/ \d+ /, ' '));
  const pid = (name) => Number(lines().find((line) => line.startsWith(name + ' ')).split(' ')[1]);
  const running = (id) => {
    try {
      process.kill(id, 0);
      return true;
    } catch (_) {
      return false;
    }
  };
  const { vscode, harness } = createVscode({ folder: dir });
  install(vscode);
  harness.settings['contrib.path'] = wrapper(dir, 'contrib-a', log);

  const extension = require('../dist/extension.js');
  const context = { subscriptions: [], extensionPath: path.resolve(__dirname, '..'), extensionUri: Uri.file(path.resolve(__dirname, '..')) };
  await extension.activate(context);
  assert.deepEqual(starts(), ['contrib-a lsp']);

  const file = path.join(dir, 'stance.contrib');
  fs.writeFileSync(file, MISSPELT);
  const doc = harness.open(file, MISSPELT);
  const codes = () => (harness.diagnostics(doc.uri) || []).map((d) => d.code && (d.code.value || d.code));

  await t.test('diagnostics arrive with the rule and a link to its versioned page', async () => {
    const [diagnostic] = await until('a diagnostic', () => (harness.diagnostics(doc.uri) || []).length > 0 && harness.diagnostics(doc.uri));
    assert.equal(diagnostic.code.value, 'C0004');
    assert.equal(diagnostic.code.target.toString(), `${crate.repository}/blob/v${crate.version}/docs/rules/unknown-field.md`);
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(diagnostic.source, 'contrib');
    assert.match(diagnostic.message, /^unknown field `budgt` in the `text` contributor `stance`\nhelp: did you mean `budget`\?$/);
    assert.equal(doc.getText(diagnostic.range), 'budgt');
    assert.ok(fs.existsSync(path.join(REPOSITORY, 'docs', 'rules', 'unknown-field.md')), 'the linked page is in the repository');
  });

  await t.test('an edit is analysed again', async () => {
    harness.edit(doc, OVER_BUDGETED);
    await until('budget-unused instead', () => codes().join() === 'C0120');
    assert.equal(harness.diagnostics(doc.uri)[0].severity, vscode.DiagnosticSeverity.Warning);
  });

  await t.test('a change to contrib.toml reaches the server', async () => {
    fs.writeFileSync(path.join(dir, 'contrib.toml'), '[lints]\nbudget-unused = "allow"\n');
    const toml = Uri.file(path.join(dir, 'contrib.toml'));
    const watchers = harness.watchers.filter((w) => /contrib\.toml/.test(JSON.stringify(w.glob)));
    assert.ok(watchers.length > 0, 'a watcher for contrib.toml');
    for (const watcher of watchers) watcher.changed.fire(toml);
    await until('the warning allowed away', () => harness.diagnostics(doc.uri) && codes().length === 0);
  });

  await t.test('hover is Markdown lists, no tables', async () => {
    const [hoverProvider] = harness.providers.hover;
    const at = new Position(4, 20); // placement ag|ent
    const hover = await hoverProvider.provideHover(doc, at, harness.token());
    const text = hover.contents.map((content) => content.value).join('\n');
    assert.match(text, /^\*\*placement\*\* `agent`/);
    assert.match(text, /^- `agent` \(here\): shared by every conversation of one agent/m);
    assert.doesNotMatch(text, /^\s*\|/m);
    assert.equal(doc.getText(hover.range), 'agent');
  });

  await t.test('the preview shows what the model is told, and follows typing', async () => {
    const panels = [];
    vscode.window.activeTextEditor = { document: doc };
    vscode.window.createWebviewPanel = (viewType, title, column, options) => {
      const panel = { viewType, title, options, webview: { html: '' }, reveal() {}, dispose() {}, onDidDispose: () => new vscode.Disposable(() => {}) };
      panels.push(panel);
      return panel;
    };
    await harness.commands['contrib.showPreview']();
    const [panel] = panels;
    assert.equal(panel.options.enableScripts, false);
    await until('the page', () => panel.webview.html.includes('Challenge premises.'));
    assert.match(panel.webview.html, /Content-Security-Policy" content="default-src 'none';/);
    assert.equal(panel.title, 'What the model is told: acme/vscode-test@1.0.0');
    harness.edit(doc, OVER_BUDGETED.replace('Challenge premises.', 'Question <b>premises</b>.'));
    await until('the page after the edit', () => panel.webview.html.includes('Question &lt;b&gt;premises&lt;/b&gt;.'));
  });

  await t.test('completion offers the placements', async () => {
    const [completionProvider] = harness.providers.completion;
    const list = await completionProvider.provideCompletionItems(doc, new Position(4, 18), harness.token(), { triggerKind: 0 });
    const labels = (Array.isArray(list) ? list : list.items).map((item) => item.label.label || item.label);
    for (const placement of ['platform', 'agent', 'person', 'conversation', 'message']) {
      assert.ok(labels.includes(placement), `${placement} in ${labels}`);
    }
  });

  await t.test('the outline has the contributor', async () => {
    const [symbolProvider] = harness.providers.documentSymbol;
    const symbols = await symbolProvider.provideDocumentSymbols(doc, harness.token());
    const names = (function flat(list) { return list.flatMap((s) => [s.name, ...flat(s.children || [])]); })(symbols);
    assert.ok(names.includes('stance'), names.join());
  });

  await t.test('formatting returns the edits that format the file', async () => {
    const untidy = OVER_BUDGETED.replace('        placement agent', '  placement    agent');
    harness.edit(doc, untidy);
    const [formatter] = harness.providers.formatting;
    const edits = await formatter.provideDocumentFormattingEdits(doc, { tabSize: 4, insertSpaces: true }, harness.token());
    assert.ok(edits.length > 0, 'edits for an untidy file');
    let text = untidy;
    for (const edit of [...edits].sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start))) {
      text = text.slice(0, doc.offsetAt(edit.range.start)) + edit.newText + text.slice(doc.offsetAt(edit.range.end));
    }
    assert.equal(text, OVER_BUDGETED);
  });

  await t.test('the contrib task runs the configured binary with the right matchers', async () => {
    const [task] = await harness.taskProviders.contrib.provideTasks(harness.token());
    assert.equal(task.name, 'check');
    assert.equal(task.execution.process, harness.settings['contrib.path']);
    assert.deepEqual(task.execution.args, ['check', '--format', 'human', '.']);
    assert.equal(task.execution.options.cwd, dir);
    assert.deepEqual(task.problemMatchers, ['$contrib-errors', '$contrib-warnings']);
    const github = await harness.taskProviders.contrib.resolveTask(
      { definition: { type: 'contrib', command: 'check', format: 'github', paths: ['plugins'] }, scope: task.scope },
      harness.token(),
    );
    assert.deepEqual(github.execution.args, ['check', '--format', 'github', 'plugins']);
    assert.deepEqual(github.problemMatchers, ['$contrib-github']);
  });

  await t.test('changing contrib.path or contrib.ruleDocsUrl restarts the server', async () => {
    harness.edit(doc, MISSPELT);
    harness.settings['contrib.path'] = wrapper(dir, 'contrib-b', log);
    harness.settings['contrib.ruleDocsUrl'] = 'https://docs.example/rules/{code}-{name}';
    harness.events.configuration.fire({ affectsConfiguration: (s) => s === 'contrib' || s === 'contrib.ruleDocsUrl' || s === 'contrib.path' });
    await until('the second server', () => starts().length === 2);
    assert.deepEqual(starts(), ['contrib-a lsp', 'contrib-b lsp']);
    await until('the first server gone', () => !running(pid('contrib-a')));
    await until('a link from the template', () => {
      const found = harness.diagnostics(doc.uri) || [];
      return found.some((d) => d.code && d.code.target && d.code.target.toString() === 'https://docs.example/rules/C0004-unknown-field');
    });
  });

  await t.test('a missing binary is an error message, not a crash', async () => {
    harness.settings['contrib.path'] = path.join(dir, 'does-not-exist');
    harness.events.configuration.fire({ affectsConfiguration: (s) => s === 'contrib.path' });
    await until('the error message', () => harness.errors.some((e) => e.includes('does-not-exist')));
  });

  await t.test('the restart command starts it again, and deactivate stops it', async () => {
    harness.settings['contrib.path'] = wrapper(dir, 'contrib-c', log);
    await harness.commands['contrib.restartServer']();
    await until('the third server', () => starts().length === 3);
    assert.ok(running(pid('contrib-c')));
    await extension.deactivate();
    await until('the third server gone', () => !running(pid('contrib-c')));
  });
  fs.rmSync(dir, { recursive: true, force: true });
});

// A stand-in for the `vscode` module, enough for the extension and the real
// vscode-languageclient to run in plain Node: VS Code itself cannot be
// downloaded where the tests run.
//
// What the client converts to and from (positions, ranges, diagnostics,
// hovers, completions, edits, symbols) is implemented for real, so that the
// protocol converters of the language client run unchanged. Everything else
// the client touches (status items, notebooks, and so on) is a no-op that
// returns a disposable. The test drives it through `harness`:
//   harness.settings          the values getConfiguration() returns
//   harness.open(path, text)  a document, as if the person opened it
//   harness.edit(doc, text)   a change to it, as if the person typed
//   harness.providers[kind]   what the client registered (hover, completion, …)
//   harness.diagnostics(uri)  what the client last published for a document
//   harness.errors            messages shown with showErrorMessage
//   harness.watchers          file system watchers created
//   harness.taskProviders     task providers registered, by type
'use strict';

const Module = require('module');
const fs = require('fs');
const path = require('path');

class Disposable {
  constructor(fn) { this._fn = fn; }
  static from(...items) { return new Disposable(() => items.forEach((item) => item && item.dispose && item.dispose())); }
  dispose() { if (this._fn) this._fn(); this._fn = undefined; }
}

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (listener, thisArg, disposables) => {
      const f = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.push(f);
      const d = new Disposable(() => { this.listeners = this.listeners.filter((x) => x !== f); });
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(e) { for (const l of this.listeners.slice()) l(e); }
  dispose() { this.listeners = []; }
}

class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
    this._emitter = emitter;
  }
  cancel() { this.token.isCancellationRequested = true; this._emitter.fire(); }
  dispose() {}
}

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    Object.assign(this, { scheme, authority: authority || '', path: p || '', query: query || '', fragment: fragment || '' });
  }
  static file(p) { return new Uri('file', '', p.split(path.sep).join('/')); }
  static parse(value) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!m) throw new Error(`not a URI: ${value}`);
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
  }
  static joinPath(base, ...parts) { return base.with({ path: path.posix.join(base.path, ...parts) }); }
  get fsPath() { return this.path; }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString() {
    const encoded = this.path.split('/').map(encodeURIComponent).join('/');
    return `${this.scheme}://${this.authority}${encoded}${this.query ? '?' + this.query : ''}${this.fragment ? '#' + this.fragment : ''}`;
  }
  toJSON() { return this.toString(); }
}

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
  isEqual(other) { return this.line === other.line && this.character === other.character; }
  isBefore(other) { return this.line < other.line || (this.line === other.line && this.character < other.character); }
  translate(lineDelta = 0, characterDelta = 0) { return new Position(this.line + lineDelta, this.character + characterDelta); }
}

class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') { this.start = new Position(a, b); this.end = new Position(c, d); } else { this.start = a; this.end = b; }
  }
  get isEmpty() { return this.start.isEqual(this.end); }
  contains(p) { return !p.isBefore(this.start) && !this.end.isBefore(p); }
}
class Selection extends Range {}
class Location { constructor(uri, range) { this.uri = uri; this.range = range; } }

const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 };
const DiagnosticTag = { Unnecessary: 1, Deprecated: 2 };
class Diagnostic {
  constructor(range, message, severity = DiagnosticSeverity.Error) { Object.assign(this, { range, message, severity }); }
}
class DiagnosticRelatedInformation { constructor(location, message) { this.location = location; this.message = message; } }

class MarkdownString {
  constructor(value = '', supportThemeIcons = false) { this.value = value; this.supportThemeIcons = supportThemeIcons; }
  appendMarkdown(value) { this.value += value; return this; }
  appendText(value) { this.value += value; return this; }
  appendCodeblock(code, language = '') { this.value += `\n\`\`\`${language}\n${code}\n\`\`\`\n`; return this; }
}
class Hover { constructor(contents, range) { this.contents = Array.isArray(contents) ? contents : [contents]; this.range = range; } }

const CompletionItemKind = new Proxy({}, { get: (_t, p) => (typeof p === 'string' ? p : undefined) });
const CompletionItemTag = { Deprecated: 1 };
const CompletionTriggerKind = { Invoke: 0, TriggerCharacter: 1, TriggerForIncompleteCompletions: 2 };
class CompletionItem { constructor(label, kind) { this.label = label; this.kind = kind; } }
class CompletionList { constructor(items = [], isIncomplete = false) { this.items = items; this.isIncomplete = isIncomplete; } }
class SnippetString { constructor(value = '') { this.value = value; } }
class TextEdit {
  constructor(range, newText) { this.range = range; this.newText = newText; }
  static replace(range, newText) { return new TextEdit(range, newText); }
  static insert(position, newText) { return new TextEdit(new Range(position, position), newText); }
  static delete(range) { return new TextEdit(range, ''); }
}
class WorkspaceEdit {
  constructor() { this._edits = []; }
  replace(uri, range, newText) { this._edits.push({ uri, edit: new TextEdit(range, newText) }); }
  insert(uri, position, newText) { this.replace(uri, new Range(position, position), newText); }
  delete(uri, range) { this.replace(uri, range, ''); }
  set(uri, edits) { for (const edit of edits) this._edits.push({ uri, edit }); }
  entries() { return this._edits.map((e) => [e.uri, [e.edit]]); }
  get size() { return this._edits.length; }
}
class CodeActionKind {
  constructor(value) { this.value = value; }
  append(part) { return new CodeActionKind(this.value ? `${this.value}.${part}` : part); }
  contains(other) { return other.value === this.value || other.value.startsWith(this.value + '.'); }
  intersects(other) { return this.contains(other) || other.contains(this); }
}
for (const [name, value] of Object.entries({ Empty: '', QuickFix: 'quickfix', Refactor: 'refactor', RefactorExtract: 'refactor.extract', RefactorInline: 'refactor.inline', RefactorRewrite: 'refactor.rewrite', Source: 'source', SourceOrganizeImports: 'source.organizeImports', SourceFixAll: 'source.fixAll', Notebook: 'notebook' })) {
  CodeActionKind[name] = new CodeActionKind(value);
}
class CodeAction { constructor(title, kind) { this.title = title; this.kind = kind; } }
const SymbolKind = new Proxy({}, { get: (_t, p) => (typeof p === 'string' ? p : undefined) });
const SymbolTag = { Deprecated: 1 };
class DocumentSymbol {
  constructor(name, detail, kind, range, selectionRange) { Object.assign(this, { name, detail, kind, range, selectionRange, children: [] }); }
}
class SymbolInformation { constructor(name, kind, containerName, location) { Object.assign(this, { name, kind, containerName, location }); } }

class ProcessExecution { constructor(process, args, options) { Object.assign(this, { process, args, options }); } }
class ShellExecution { constructor(commandLine, options) { Object.assign(this, { commandLine, options }); } }
class Task {
  constructor(definition, scope, name, source, execution, problemMatchers) {
    Object.assign(this, { definition, scope, name, source, execution, problemMatchers: [].concat(problemMatchers || []) });
  }
}
const TaskGroup = { Build: { id: 'build' }, Test: { id: 'test' }, Clean: { id: 'clean' }, Rebuild: { id: 'rebuild' } };

/** Unknown members become no-op functions that return a disposable. */
function anything() {
  return new Proxy(function () { return new Disposable(); }, {
    get(_t, p) { return p === 'then' ? undefined : anything(); },
  });
}
const withFallback = (obj) => new Proxy(obj, { get: (t, p) => (p in t ? t[p] : anything()) });

/** Offsets and positions in `text`, counted in UTF-16 code units as VS Code does. */
function document(uri, languageId, text, version = 1) {
  const doc = {
    uri, languageId, version, fileName: uri.fsPath, isUntitled: uri.scheme === 'untitled', isDirty: false, isClosed: false, eol: 1,
    _text: text,
    getText(range) { return range ? this._text.slice(this.offsetAt(range.start), this.offsetAt(range.end)) : this._text; },
    get lineCount() { return this._text.split('\n').length; },
    offsetAt(position) {
      const lines = this._text.split('\n');
      let offset = 0;
      for (let i = 0; i < position.line && i < lines.length; i++) offset += lines[i].length + 1;
      return Math.min(offset + position.character, this._text.length);
    },
    positionAt(offset) {
      const before = this._text.slice(0, offset).split('\n');
      return new Position(before.length - 1, before[before.length - 1].length);
    },
    lineAt(line) { const text = this._text.split('\n')[line] ?? ''; return { text, range: new Range(line, 0, line, text.length), lineNumber: line }; },
    save: () => Promise.resolve(true),
  };
  return doc;
}

function createVscode({ version = '1.91.0', folder } = {}) {
  const harness = {
    settings: {},
    providers: {},
    collections: [],
    errors: [],
    watchers: [],
    taskProviders: {},
    documents: [],
    commands: {},
    events: {
      configuration: new EventEmitter(),
      open: new EventEmitter(),
      change: new EventEmitter(),
      close: new EventEmitter(),
      save: new EventEmitter(),
    },
  };
  const provider = (kind) => (selector, implementation) => {
    (harness.providers[kind] = harness.providers[kind] || []).push(implementation);
    return new Disposable(() => { harness.providers[kind] = harness.providers[kind].filter((p) => p !== implementation); });
  };
  const folders = folder ? [{ uri: Uri.file(folder), name: path.basename(folder), index: 0 }] : [];

  const vscode = withFallback({
    version,
    Uri, Position, Range, Selection, Location, Disposable, EventEmitter, CancellationTokenSource,
    Diagnostic, DiagnosticSeverity, DiagnosticTag, DiagnosticRelatedInformation,
    MarkdownString, Hover, CompletionItem, CompletionItemKind, CompletionItemTag, CompletionList, CompletionTriggerKind, SnippetString,
    TextEdit, WorkspaceEdit, CodeAction, CodeActionKind, DocumentSymbol, SymbolInformation, SymbolKind, SymbolTag,
    ProcessExecution, ShellExecution, Task, TaskGroup,
    TaskScope: { Global: 1, Workspace: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    EndOfLine: { LF: 1, CRLF: 2 },
    UIKind: { Desktop: 1, Web: 2 },
    TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
    env: { language: 'en', appName: 'test', appRoot: '', machineId: 'm', sessionId: 's', uiKind: 1, uriScheme: 'vscode', openExternal: () => Promise.resolve(true) },
    workspace: withFallback({
      workspaceFolders: folders,
      get textDocuments() { return harness.documents; },
      notebookDocuments: [],
      getConfiguration: (section) => ({
        get: (key, def) => {
          const k = section ? `${section}.${key}` : key;
          return k in harness.settings ? harness.settings[k] : def;
        },
        has: (key) => `${section}.${key}` in harness.settings,
        inspect: () => undefined,
        update: () => Promise.resolve(),
      }),
      getWorkspaceFolder: (uri) => folders.find((f) => uri.fsPath.startsWith(f.uri.fsPath + '/')),
      onDidChangeConfiguration: harness.events.configuration.event,
      onDidOpenTextDocument: harness.events.open.event,
      onDidChangeTextDocument: harness.events.change.event,
      onDidCloseTextDocument: harness.events.close.event,
      onDidSaveTextDocument: harness.events.save.event,
      createFileSystemWatcher(glob) {
        const w = { glob, created: new EventEmitter(), changed: new EventEmitter(), deleted: new EventEmitter(), dispose() {} };
        w.onDidCreate = w.created.event;
        w.onDidChange = w.changed.event;
        w.onDidDelete = w.deleted.event;
        harness.watchers.push(w);
        return w;
      },
      fs: { readFile: (uri) => Promise.resolve(fs.readFileSync(uri.fsPath)), stat: (uri) => Promise.resolve(fs.statSync(uri.fsPath)) },
      applyEdit: () => Promise.resolve(true),
    }),
    window: withFallback({
      // A plain channel, or with `{ log: true }` a LogOutputChannel, which
      // alone has a log level (the language client needs one).
      createOutputChannel: (name, options) => {
        const channel = { name, lines: [], append(text) { this.lines.push(text); }, appendLine(line) { this.lines.push(line); }, show() {}, hide() {}, clear() {}, replace() {}, dispose() {} };
        if (!(options && typeof options === 'object' && options.log)) return channel;
        const levelChanged = new EventEmitter();
        const log = (level) => function (message) { this.lines.push(`[${level}] ${message}`); };
        return Object.assign(channel, { logLevel: 2, onDidChangeLogLevel: levelChanged.event, trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') });
      },
      showErrorMessage: (message) => { harness.errors.push(message); return Promise.resolve(undefined); },
      showWarningMessage: () => Promise.resolve(undefined),
      showInformationMessage: () => Promise.resolve(undefined),
      visibleTextEditors: [],
      tabGroups: { all: [], onDidChangeTabs: new EventEmitter().event, onDidChangeTabGroups: new EventEmitter().event },
    }),
    commands: withFallback({
      registerCommand(id, f) { harness.commands[id] = f; return new Disposable(() => delete harness.commands[id]); },
      executeCommand: () => Promise.resolve(),
    }),
    languages: withFallback({
      createDiagnosticCollection(name) {
        const entries = new Map();
        const collection = {
          name,
          set(uri, diagnostics) {
            if (Array.isArray(uri)) { for (const [u, d] of uri) this.set(u, d); return; }
            entries.set(uri.toString(), diagnostics || []);
          },
          delete(uri) { entries.delete(uri.toString()); },
          clear() { entries.clear(); },
          get(uri) { return entries.get(uri.toString()); },
          has(uri) { return entries.has(uri.toString()); },
          forEach(f) { for (const [k, v] of entries) f(Uri.parse(k), v, this); },
          dispose() { entries.clear(); },
        };
        harness.collections.push(collection);
        return collection;
      },
      match(selector, doc) {
        const filters = Array.isArray(selector) ? selector : [selector];
        return filters.some((f) => (typeof f === 'string' ? f === doc.languageId : (!f.language || f.language === doc.languageId) && (!f.scheme || f.scheme === doc.uri.scheme))) ? 10 : 0;
      },
      registerHoverProvider: provider('hover'),
      registerCompletionItemProvider: provider('completion'),
      registerDocumentFormattingEditProvider: provider('formatting'),
      registerDocumentSymbolProvider: provider('documentSymbol'),
      registerCodeActionsProvider: provider('codeAction'),
      registerDefinitionProvider: provider('definition'),
    }),
    tasks: withFallback({
      registerTaskProvider(type, implementation) {
        harness.taskProviders[type] = implementation;
        return new Disposable(() => delete harness.taskProviders[type]);
      },
    }),
    extensions: { getExtension: () => undefined, all: [], onDidChange: new EventEmitter().event },
  });

  harness.open = (file, text, languageId = 'contrib') => {
    const doc = document(Uri.file(file), languageId, text);
    harness.documents.push(doc);
    harness.events.open.fire(doc);
    return doc;
  };
  harness.edit = (doc, text) => {
    const whole = new Range(new Position(0, 0), doc.positionAt(doc._text.length));
    const rangeLength = doc._text.length;
    doc._text = text;
    doc.version += 1;
    harness.events.change.fire({ document: doc, contentChanges: [{ range: whole, rangeOffset: 0, rangeLength, text }], reason: undefined });
  };
  harness.diagnostics = (uri) => {
    for (const collection of harness.collections) {
      const found = collection.get(uri);
      if (found) return found;
    }
    return undefined;
  };
  harness.token = () => new CancellationTokenSource().token;
  return { vscode, harness };
}

/** Makes `require('vscode')` return `vscode`, for every module loaded after. */
function install(vscode) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
  };
  require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };
}

module.exports = { createVscode, install, Position, Range, Uri };

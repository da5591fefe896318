// @contrib-lang/runtime: the contrib runtime for agent hosts in Node.js.
//
// This file is the package's API over its native module (a Node-API
// module built from crates/contrib-node with napi-rs, one per platform):
// the classes a host uses, and the errors they throw. Types: index.d.ts.
// The long guide is docs/host.md in the repository.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const native = load();

/** The wires a body can be written for. */
export const WIRES = Object.freeze(['anthropic', 'openai-responses', 'openai-chat']);

/** Something the runtime refused; `code` says what, `diagnostics` why. */
export class ContribError extends Error {
  constructor(code, message, diagnostics = []) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.diagnostics = diagnostics;
  }
}

/** The workspace could not be opened (no `contrib.toml`, an unreadable file, a policy with errors, a required plugin refused). */
export class WorkspaceError extends ContribError {}
/** No cache profile has the name asked for, or a profiles file could not be read. */
export class ProfileError extends ContribError {}
/** A session log could not be resumed: damaged, or from another conversation's versions. */
export class ResumeError extends ContribError {}
/** The session (TOML text or object) is not valid. */
export class SessionError extends ContribError {}
/** The session log could not be written to the file named. */
export class LogError extends ContribError {}
/** A value the host passed does not have the shape it should. */
export class InputError extends ContribError {}

const classes = {
  workspace: WorkspaceError,
  profile: ProfileError,
  resume: ResumeError,
  session: SessionError,
  log: LogError,
};

/** A native refusal (`{ kind, code, message, diagnostics }`) as its error. */
function refused(failure) {
  const Class = classes[failure.kind] ?? ContribError;
  return new Class(failure.code, failure.message, failure.diagnostics);
}

/** What Node-API calls a value of the wrong type or shape. */
const badValues = new Set([
  'InvalidArg',
  'ObjectExpected',
  'StringExpected',
  'NumberExpected',
  'BooleanExpected',
  'ArrayExpected',
  'FunctionExpected',
]);

/** Calls the native module, turning a bad value's error into an InputError. */
function call(work) {
  try {
    return work();
  } catch (error) {
    if (error instanceof Error && badValues.has(error.code)) {
      throw new InputError('invalid-input', error.message);
    }
    throw error;
  }
}

const token = Symbol('internal');

/** A workspace's approved plugins, loaded for hosting. */
export class Workspace {
  #native;

  constructor(internal, nativeWorkspace) {
    if (internal !== token) {
      throw new TypeError('open a workspace with Workspace.open(folder)');
    }
    this.#native = nativeWorkspace;
  }

  /** Opens the workspace in `folder` (its `contrib.toml`, and `contrib.lock` once something is installed). */
  static open(folder, { profiles } = {}) {
    const opened = call(() => native.openWorkspace(folder, profiles ?? null));
    if (!(opened instanceof native.NativeWorkspace)) {
      throw refused(opened);
    }
    return new Workspace(token, opened);
  }

  /** The folder it was opened from. */
  get folder() {
    return this.#native.folder();
  }

  /** The pinned versions loading refused, each with its reason. */
  refusedAtLoad() {
    return this.#native.refusedAtLoad();
  }

  /** The plugin versions it composes, as `scope/name@version`. */
  plugins() {
    return this.#native.plugins();
  }

  /** A conversation in `session` (TOML text or an object of its shape), about to start or resume. */
  conversation(session, setup = {}) {
    return new Starting(this.#native, session, setup);
  }
}

/** A conversation about to start or resume. */
export class Starting {
  #workspace;
  #session;
  #setup;

  constructor(nativeWorkspace, session, setup) {
    this.#workspace = nativeWorkspace;
    this.#session = session;
    this.#setup = setup;
  }

  /** Starts it: composes the kept system prompt and the opening once. */
  start() {
    return this.#begin(null);
  }

  /** Continues the conversation `log` records, with what was said in it as `said()` returned it. */
  resume(log, said) {
    return this.#begin({ log, said });
  }

  #begin(resume) {
    const { gate, reader, profile, tools, options, log } = this.#setup;
    const setup = {
      profile: profile ?? undefined,
      tools: tools ?? undefined,
      options: options ?? undefined,
      logPath: log ?? undefined,
    };
    const started = call(() =>
      native.startConversation(
        this.#workspace,
        this.#session,
        setup,
        gate ?? null,
        reader ?? null,
        resume,
      ),
    );
    if (!(started instanceof native.NativeConversation)) {
      throw refused(started);
    }
    return new Conversation(token, started);
  }
}

/** One conversation: per turn `turn`, per request `request` then `body`, after each reply `modelSaid` and `toolResults`. */
export class Conversation {
  #native;

  constructor(internal, nativeConversation) {
    if (internal !== token) {
      throw new TypeError('start a conversation with workspace.conversation(session, setup).start()');
    }
    this.#native = nativeConversation;
  }

  /** A turn begins at `input` (an RFC 3339 time, or a turn input object) with the person's message. */
  turn(input, prompt = null) {
    return call(() => this.#native.turn(input, prompt));
  }

  /** Before each request of a turn: the fact sections told, and the request's record. */
  request(input) {
    return call(() => this.#native.request(input));
  }

  /** The next request's body on `wire`, ready for the provider's SDK. */
  body(wire) {
    return call(() => this.#native.body(wire));
  }

  /** What the next request's body on `wire` holds. */
  bodyRecord(wire) {
    return call(() => this.#native.bodyRecord(wire));
  }

  /** What the model replied: its words and the tools it called. */
  modelSaid(text, calls = []) {
    call(() => this.#native.modelSaid(text, calls));
  }

  /** What the host's tools returned for the model's calls. */
  toolResults(results) {
    call(() => this.#native.toolResults(results));
  }

  /** The host compacted the conversation: `kept` replaces what was said. */
  compact(kept) {
    call(() => this.#native.compact(kept));
  }

  /** A person approved `contributor`'s gated call (`scope/name@version/id`). */
  approve(contributor) {
    call(() => this.#native.approve(contributor));
  }

  /** A person refused `contributor`'s gated call. */
  deny(contributor) {
    call(() => this.#native.deny(contributor));
  }

  /** What was said since the opening, for the host to store. */
  said() {
    return this.#native.said();
  }

  /** The session log: what it resumed from, and what was written since. */
  sessionLog() {
    return this.#native.sessionLog();
  }

  /** The kept system prompt. */
  systemPrompt() {
    return this.#native.systemPrompt();
  }

  /** The opening: conversation texts and eager runs, before the first prompt. */
  opening() {
    return this.#native.opening();
  }

  /** The cache breakpoints placed for the kept prefix. */
  breakpoints() {
    return this.#native.breakpoints();
  }

  /** What the composer warns about. */
  warnings() {
    return this.#native.warnings();
  }

  /** Why writing the session log failed, if it did. */
  logError() {
    return this.#native.logError() ?? null;
  }
}

/** The native module for this platform, beside this file (the package holds one per platform). */
function load() {
  const suffix = platformSuffix();
  try {
    return require(`./contrib-runtime.${suffix}.node`);
  } catch (error) {
    throw new Error(
      `@contrib-lang/runtime has no native module for ${suffix} (contrib-runtime.${suffix}.node): ${error.message.split('\n')[0]}`,
    );
  }
}

/** napi-rs's name for this platform: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') {
    return `win32-${arch}-msvc`;
  }
  return `${platform}-${arch}`;
}

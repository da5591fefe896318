// Types of @contrib-lang/runtime (index.js). The objects have the shapes
// of the runtime's files (snake_case fields, as `contrib compose` reads
// and writes them), the same in every language the runtime is hosted in.

/** A provider's request format. */
export type Wire = 'anthropic' | 'openai-responses' | 'openai-chat';

/** The wires a body can be written for. */
export declare const WIRES: readonly Wire[];

/** An RFC 3339 time such as `2026-03-02T09:00:00+01:00`. */
export type Timestamp = string;

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A diagnostic an invalid policy carries. */
export interface Diagnostic {
  /** The rule's stable code. */
  code: string;
  /** The rule's name. */
  name: string;
  severity: 'error' | 'warning';
  message: string;
  /** How to fix it. */
  help: string | null;
  location: {
    file: string;
    /** 1-based; null when the file could not be read again. */
    line: number | null;
    column: number | null;
    /** Byte offsets in the file. */
    start: number;
    end: number;
  };
}

/** Something the runtime refused; `code` says what, `diagnostics` why. */
export declare class ContribError extends Error {
  /** A stable code: `not-a-workspace`, `unreadable`, `invalid-policy`, `required-refused`, `unknown-profile`, `unreadable-profiles`, `unresumable`, `invalid-session`, `log-exists`, `unwritable-log`, `invalid-input`. */
  readonly code: string;
  readonly diagnostics: Diagnostic[];
}
/** The workspace could not be opened. */
export declare class WorkspaceError extends ContribError {}
/** No cache profile has the name asked for, or a profiles file could not be read. */
export declare class ProfileError extends ContribError {}
/** A session log could not be resumed. */
export declare class ResumeError extends ContribError {}
/** The session is not valid. */
export declare class SessionError extends ContribError {}
/** The session log could not be written to the file named. */
export declare class LogError extends ContribError {}
/** A value the host passed does not have the shape it should. */
export declare class InputError extends ContribError {}

/** What a conversation is composed with, besides bundles (the session file's shape). */
export interface Session {
  started_at: Timestamp;
  tools?: string[];
  agent: { name: string; [key: string]: Json };
  person?: { id: string; name: string; [key: string]: Json };
  model: { name: string; [key: string]: Json };
  max_tokens?: number;
  environment?: { [key: string]: Json };
  skills?: { [slug: string]: Json };
  permissions?: { mode?: string; allowed?: string[] };
  origins?: { [name: string]: string };
}

/** One tool call a contributor makes, as the host's gate hears it. */
export interface GateRequest {
  /** `plugin@version/id`: whose call this is. Never the model's. */
  contributor: string;
  tool: string;
  arguments: { [name: string]: Json };
  effect: 'read' | 'write';
  /** Whether the tool waits for a person's approval. */
  gated: boolean;
  /** When the call is made, in the person's offset. */
  at: Timestamp;
}

/** What became of a contributor's call; a string is what the tool returned. */
export type GateOutcome =
  | string
  | { outcome: 'ran'; output: string }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'pending'; reason: string };

/**
 * The host's side of contributors' tool calls, called synchronously once
 * the workspace's policy allows a call. What it throws is thrown again by
 * the method that reached it (the call is refused meanwhile).
 */
export type Gate = (request: GateRequest) => GateOutcome;

/** What eager loads read: the text of a skill's operation, or undefined when the host has none. */
export type Reader = (skill: string, version: string, operation: string) => string | null | undefined;

/** A tool the host can advertise to the model. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** The JSON Schema of its arguments (an object schema). */
  input_schema: { [key: string]: Json };
  /** Advertised only once loaded. */
  deferred?: boolean;
}

/** How a conversation starts. */
export interface Setup {
  /** The host's side of contributors' tool calls; without one, the command line's gate answers. */
  gate?: Gate;
  /** Reads what eager loads load, so their real text goes into the prompt. */
  reader?: Reader;
  /** The cache profile: `anthropic` (when left out), `openai`, `none`, or one from the workspace's profiles file. */
  profile?: string;
  /** The host's tool definitions. */
  tools?: ToolDefinition[];
  /** Where the designs disagree, the host's choices. */
  options?: {
    person_part?: string;
    facts?: string;
    prefaces?: string;
    model_change?: string;
  };
  /** A file the session log is written to as it goes (created on start, appended to on resume). */
  log?: string;
}

/** A turn's input (the turns file's shape); a time alone is a reply to a person at that time. */
export interface TurnInput {
  at: Timestamp;
  person_present?: boolean;
  replying?: boolean;
  compaction?: boolean;
  model?: { name: string; [key: string]: Json };
  tools?: string[];
  skills?: { [slug: string]: Json };
  mode?: string;
  allowed?: string[];
  environment?: { [key: string]: Json };
  command?: string;
  invoked_skill?: string;
  pick?: { [key: string]: Json };
  subagent?: string;
  files?: string[];
  requested?: string[];
}

/** A request's input; a time alone is a request with nothing changed. */
export interface RequestInput {
  at: Timestamp;
  model?: { name: string; [key: string]: Json };
  tools?: string[];
  skills?: { [slug: string]: Json };
  mode?: string;
  allowed?: string[];
  environment?: { [key: string]: Json };
}

/** A note the runtime adds to the conversation. */
export interface Note {
  contributor: string;
  kind: string;
  text: string;
  [key: string]: Json;
}

/** One turn: its notes and its record. */
export interface Turn {
  number: number;
  at: Timestamp;
  recomposed?: string;
  notes: Note[];
  pick?: { [key: string]: Json };
  record: { [key: string]: Json };
}

/** One request: the fact sections told before it, and its record. */
export interface Request {
  turn: number;
  number: number;
  at: Timestamp;
  messages: Note[];
  record: { [key: string]: Json };
}

/** A tool call the model made. */
export interface ToolCall {
  id: string;
  name: string;
  input?: Json;
}

/** What a tool returned for one call. */
export interface ToolResult {
  id: string;
  output: string;
  is_error?: boolean;
}

/** One thing said in a conversation, as the host stores it. */
export type Said =
  | { said: 'person'; text: string; pick?: { [key: string]: Json } }
  | { said: 'model'; text?: string; calls?: ToolCall[] }
  | { said: 'results'; results: ToolResult[] }
  | { said: 'note'; contributor: string; kind: string; text: string };

/** What a body holds. */
export interface BodyRecord {
  breakpoints: { after: string; lifetime: string }[];
  tokens: { input: number; tokenizer: string; exact: boolean; how: string };
  tools: string[];
  undefined_tools?: string[];
  prompt_cache_key?: string;
  warnings?: string[];
}

/**
 * A request body, exactly as the provider's SDK sends it. Its fields are
 * typed loosely so that it casts to the SDK's parameter type
 * (`body as Anthropic.MessageCreateParamsNonStreaming`): the package
 * depends on no SDK.
 */
export type Body = { model: string; [key: string]: any };

/** A workspace's approved plugins, loaded for hosting. */
export declare class Workspace {
  private constructor();
  /** Opens the workspace in `folder`; `profiles` replaces the shipped cache profiles. Throws WorkspaceError, ProfileError. */
  static open(folder: string, options?: { profiles?: string }): Workspace;
  /** The folder it was opened from. */
  readonly folder: string;
  /** The pinned versions loading refused, each with its reason. */
  refusedAtLoad(): string[];
  /** The plugin versions it composes, as `scope/name@version`. */
  plugins(): string[];
  /** A conversation in `session` (TOML text or an object of its shape), about to start or resume. */
  conversation(session: string | Session, setup?: Setup): Starting;
}

/** A conversation about to start or resume. */
export declare class Starting {
  private constructor();
  /** Composes the kept system prompt and the opening once. Throws SessionError, ProfileError, LogError, InputError. */
  start(): Conversation;
  /** Continues the conversation `log` records, with what was said as `said()` returned it. Throws ResumeError too. */
  resume(log: string, said: Said[]): Conversation;
}

/** One conversation. */
export declare class Conversation {
  private constructor();
  /** A turn begins (the workspace's files are read again first); returns its notes and record. */
  turn(input: Timestamp | TurnInput, prompt?: string | null): Turn;
  /** Before each request of a turn: the fact sections that changed are told. */
  request(input: Timestamp | RequestInput): Request;
  /** The next request's body on `wire`: `client.messages.create(body)`, `client.responses.create(body)`, `client.chat.completions.create(body)`. */
  body(wire: Wire): Body;
  /** What the next request's body on `wire` holds. */
  bodyRecord(wire: Wire): BodyRecord;
  /** What the model replied: its words and the tools it called. */
  modelSaid(text: string, calls?: ToolCall[]): void;
  /** What the host's tools returned for the model's calls. */
  toolResults(results: ToolResult[]): void;
  /** The host compacted the conversation: `kept` replaces what was said; take the next turn with `compaction: true`. */
  compact(kept: Said[]): void;
  /** A person approved `contributor`'s gated call; it runs at the next turn. */
  approve(contributor: string): void;
  /** A person refused `contributor`'s gated call. */
  deny(contributor: string): void;
  /** What was said since the opening, for the host to store. */
  said(): Said[];
  /** The session log: what it resumed from, and what was written since. */
  sessionLog(): string;
  /** The kept system prompt. */
  systemPrompt(): { [key: string]: Json };
  /** The opening: conversation texts and eager runs. */
  opening(): { [key: string]: Json }[];
  /** The cache breakpoints placed for the kept prefix. */
  breakpoints(): { [key: string]: Json }[];
  /** What the composer warns about. */
  warnings(): string[];
  /** Why writing the session log failed, if it did. */
  logError(): string | null;
}

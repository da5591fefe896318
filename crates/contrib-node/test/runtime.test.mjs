// The package's API over a workspace with nothing installed (a policy, no
// lock): starting, turns, requests, bodies on every wire, tool rounds,
// resuming, and the errors. The gate and the reader, which need installed
// plugins, are tested over the conformance corpus (conformance.test.mjs).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import {
  ContribError,
  Conversation,
  InputError,
  LogError,
  ProfileError,
  ResumeError,
  SessionError,
  WIRES,
  Workspace,
  WorkspaceError,
} from '../index.js';

const folders = [];
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function folderWith(policy) {
  const folder = mkdtempSync(join(tmpdir(), 'contrib-node-'));
  folders.push(folder);
  writeFileSync(join(folder, 'contrib.toml'), policy);
  return folder;
}

const POLICY = '[workspace]\ncontext_budget = 200000\n';

const SESSION = `
started_at = "2026-03-02T09:00:00Z"
tools = ["search_code"]
[agent]
name = "Helper"
[person]
id = "sam"
name = "Sam"
locale = "en-GB"
timezone = "Europe/London"
[model]
name = "claude-sonnet-4-5"
`;

const TOOLS = [
  {
    name: 'search_code',
    description: 'Search the code.',
    input_schema: { type: 'object', properties: { query: { type: 'string' } } },
  },
];

function started(session = SESSION, setup = { tools: TOOLS }) {
  return Workspace.open(folderWith(POLICY)).conversation(session, setup).start();
}

/** The first turn and its first request. */
function firstTurn(conversation) {
  const turn = conversation.turn('2026-03-02T09:01:00Z', 'Where is the login handler?');
  conversation.request(turn.at);
  return turn;
}

test('a body on every wire is the object its SDK sends', () => {
  const conversation = started();
  const turn = firstTurn(conversation);
  assert.equal(turn.number, 1);
  const anthropic = conversation.body('anthropic');
  assert.equal(anthropic.model, 'claude-sonnet-4-5');
  assert.equal(anthropic.max_tokens, 4096);
  assert.equal(anthropic.messages[0].role, 'user');
  assert.deepEqual(anthropic.tools.map((tool) => tool.name), ['search_code']);
  const responses = conversation.body('openai-responses');
  assert.equal(responses.max_output_tokens, 4096);
  assert.ok(Array.isArray(responses.input));
  const chat = conversation.body('openai-chat');
  assert.equal(chat.max_completion_tokens, 4096);
  assert.equal(chat.messages.at(-1).role, 'user');
  assert.deepEqual(WIRES, ['anthropic', 'openai-responses', 'openai-chat']);
  const record = conversation.bodyRecord('openai-chat');
  assert.deepEqual(record.tools, ['search_code']);
  assert.match(record.prompt_cache_key, /\S/);
  assert.ok(record.tokens.input > 0);
});

test('a session object composes exactly as its TOML text', () => {
  const fromText = started();
  const fromObject = started({
    started_at: '2026-03-02T09:00:00Z',
    tools: ['search_code'],
    agent: { name: 'Helper' },
    person: { id: 'sam', name: 'Sam', locale: 'en-GB', timezone: 'Europe/London' },
    model: { name: 'claude-sonnet-4-5' },
  });
  firstTurn(fromText);
  firstTurn(fromObject);
  for (const wire of WIRES) {
    assert.deepEqual(fromObject.body(wire), fromText.body(wire), wire);
  }
});

test('every tool call is answered in the next message', () => {
  const conversation = started();
  firstTurn(conversation);
  conversation.modelSaid("I'll search.", [
    { id: 'toolu_01', name: 'search_code', input: { query: 'login' } },
  ]);
  conversation.toolResults([{ id: 'toolu_01', output: 'src/login.rs:12' }]);
  conversation.request('2026-03-02T09:01:10Z');
  const messages = conversation.body('anthropic').messages;
  const [asked, answered] = messages.slice(-2);
  assert.equal(asked.role, 'assistant');
  assert.deepEqual(
    asked.content.filter((block) => block.type === 'tool_use').map((block) => block.id),
    ['toolu_01'],
  );
  assert.equal(answered.role, 'user');
  assert.equal(answered.content[0].type, 'tool_result');
  assert.equal(answered.content[0].tool_use_id, 'toolu_01');
  assert.deepEqual(
    conversation.said().map((said) => said.said),
    ['person', 'model', 'results'],
  );
});

test('a resumed conversation writes what the one it continues would have', () => {
  const folder = folderWith(POLICY);
  const workspace = Workspace.open(folder);
  const logPath = join(folder, 'sam.log');
  const original = workspace.conversation(SESSION, { tools: TOOLS, log: logPath }).start();
  firstTurn(original);
  original.modelSaid('It is in src/login.rs.');
  const log = original.sessionLog();
  assert.match(log, /\S/);
  assert.equal(readFileSync(logPath, 'utf8'), log, 'the log file holds what sessionLog() returns');

  const resumed = workspace
    .conversation(SESSION, { tools: TOOLS })
    .resume(log, JSON.parse(JSON.stringify(original.said())));
  for (const conversation of [original, resumed]) {
    const turn = conversation.turn('2026-03-02T10:00:00Z', 'Thanks. And the tests?');
    assert.equal(turn.number, 2);
    conversation.request(turn.at);
  }
  for (const wire of WIRES) {
    assert.deepEqual(resumed.body(wire), original.body(wire), wire);
  }
  assert.ok(resumed.sessionLog().startsWith(log), 'the resumed log continues the first');
  assert.equal(resumed.logError(), null);
});

test('a new conversation never overwrites a log', () => {
  const folder = folderWith(POLICY);
  const workspace = Workspace.open(folder);
  const logPath = join(folder, 'sam.log');
  writeFileSync(logPath, 'contrib-session-log 2\nanother conversation\n');
  assert.throws(
    () => workspace.conversation(SESSION, { tools: TOOLS, log: logPath }).start(),
    (error) => error instanceof LogError && error.code === 'log-exists' && /already exists/.test(error.message),
  );
  assert.equal(readFileSync(logPath, 'utf8'), 'contrib-session-log 2\nanother conversation\n');
});

test('a compaction replaces what was said', () => {
  const conversation = started();
  firstTurn(conversation);
  conversation.modelSaid('It is in src/login.rs.');
  conversation.compact([{ said: 'person', text: 'Recap: the login handler is in src/login.rs.' }]);
  const turn = conversation.turn(
    { at: '2026-03-02T12:00:00Z', compaction: true },
    'And the logout handler?',
  );
  conversation.request(turn.at);
  const text = JSON.stringify(conversation.body('anthropic').messages);
  assert.match(text, /Recap: the login handler/);
  assert.doesNotMatch(text, /Where is the login handler\?/);
});

test('a folder without contrib.toml is not a workspace', () => {
  const folder = mkdtempSync(join(tmpdir(), 'contrib-node-'));
  folders.push(folder);
  assert.throws(
    () => Workspace.open(folder),
    (error) =>
      error instanceof WorkspaceError &&
      error instanceof ContribError &&
      error.name === 'WorkspaceError' &&
      error.code === 'not-a-workspace' &&
      error.message.includes('is not a workspace'),
  );
});

test('a policy with errors carries its diagnostics, with their locations', () => {
  const folder = folderWith('[workspace]\ncontext_budget = 200000\ntokenizer = "gpt2"\n');
  let thrown;
  try {
    Workspace.open(folder);
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof WorkspaceError, String(thrown));
  assert.equal(thrown.code, 'invalid-policy');
  assert.ok(thrown.diagnostics.length >= 1);
  const [diagnostic] = thrown.diagnostics;
  assert.match(diagnostic.code, /^[A-Z]+\d+$/);
  assert.equal(diagnostic.severity, 'error');
  assert.match(diagnostic.message, /gpt2/);
  assert.equal(diagnostic.location.file, join(folder, 'contrib.toml'));
  assert.equal(diagnostic.location.line, 3);
  assert.ok(diagnostic.location.column >= 1);
});

test('each refusal is its own error class', () => {
  const workspace = Workspace.open(folderWith(POLICY));
  assert.throws(
    () => workspace.conversation(SESSION, { profile: 'nowhere' }).start(),
    (error) => error instanceof ProfileError && error.code === 'unknown-profile',
  );
  assert.throws(
    () => workspace.conversation('[agent]\nname = "Helper"\n').start(),
    (error) => error instanceof SessionError && error.code === 'invalid-session',
  );
  assert.throws(
    () => workspace.conversation(SESSION).resume('not a session log\n', []),
    (error) => error instanceof ResumeError && error.code === 'unresumable',
  );
  const conversation = workspace.conversation(SESSION).start();
  assert.throws(
    () => conversation.toolResults([{ id: 'toolu_01' }]),
    (error) => error instanceof InputError && /output/.test(error.message),
  );
  assert.throws(
    () => conversation.body('openai-completions'),
    (error) => error instanceof InputError && /no wire `openai-completions`/.test(error.message),
  );
  assert.throws(
    () => conversation.body(3),
    (error) => error instanceof InputError && error.code === 'invalid-input',
  );
  assert.throws(
    () => Workspace.open(7),
    (error) => error instanceof InputError,
  );
  assert.throws(
    () => conversation.turn('yesterday', 'hi'),
    (error) => error instanceof InputError && /RFC 3339/.test(error.message),
  );
});

test('the classes are made by the package, not by hand', () => {
  assert.throws(() => new Workspace(), TypeError);
  assert.throws(() => new Conversation(), TypeError);
});

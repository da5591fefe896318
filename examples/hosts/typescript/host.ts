// An agent host in TypeScript on the official Anthropic SDK and
// @contrib-lang/runtime: the contributors a workspace approved, composed
// into every request, and the host's own agent loop around them.
//
// - Sam and Priya each talk to the same agent, two turns each; the model's
//   tool calls are answered by the host's tools, round after round.
// - Then the host "restarts": the workspace is opened again and Sam's
//   conversation resumed from the session log and what was said, as the
//   host stored them, and it takes one more turn.
//
// The SDK reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, and nothing else
// is read, so it runs unchanged against the provider or a local stand-in
// (run.sh). It checks what the runtime sent as it goes and exits 1 if a
// rule was broken.
//
//     node dist/host.js WORKSPACE EXAMPLES_RUNTIME_DIR

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Anthropic from '@anthropic-ai/sdk';
import {
  type Body,
  type Conversation,
  type GateOutcome,
  type GateRequest,
  type Said,
  type ToolCall,
  type ToolDefinition,
  type ToolResult,
  Workspace,
} from '@contrib-lang/runtime';

const [folder, examples] = process.argv.slice(2);
if (!folder || !examples) {
  console.error('usage: node dist/host.js WORKSPACE EXAMPLES_RUNTIME_DIR (see run.sh)');
  process.exit(2);
}

const client = new Anthropic();
const tools: ToolDefinition[] = JSON.parse(readFileSync(join(examples, 'tools.json'), 'utf8'));
const samSession = readFileSync(join(examples, 'session.toml'), 'utf8');
const priyaSession = samSession
  .replace('id = "sam-okafor"', 'id = "priya-n"')
  .replace('name = "Sam Okafor"', 'name = "Priya N"');

/** The host's side of contributors' tool calls: here, canned answers. */
function gate(request: GateRequest): GateOutcome {
  switch (request.tool) {
    case 'get_current_time':
      return request.at;
    case 'read_memory':
      return 'The release is on Thursday.';
    case 'fetch_url':
      return 'Handbook: reviews within a day.';
    default:
      return { outcome: 'refused', reason: `\`${request.tool}\` is not offered to contributors here` };
  }
}

/**
 * What eager loads read: the text of a skill's operation, from the host's
 * own copy of its skills (skills/<skill>/<operation>.md beside this host).
 * With the real text, the agent prefix is what it is in production: here
 * just over the 1,024 tokens Anthropic caches at least, so it carries the
 * agent breakpoint the two people share.
 */
function reader(skill: string, _version: string, operation: string): string | undefined {
  try {
    return readFileSync(new URL(`../skills/${skill}/${operation}.md`, import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}

/** The host's own tools, which the model calls. */
function runTool(call: ToolCall): ToolResult {
  const input = (call.input ?? {}) as Record<string, unknown>;
  switch (call.name) {
    case 'search_code':
      return { id: call.id, output: `src/auth/login.rs:42: set_session_cookie(&user) // ${String(input.query ?? '')}` };
    case 'read_object':
      return { id: call.id, output: 'fn login(user: &User) { set_session_cookie(user) }' };
    case 'get_current_time':
      return { id: call.id, output: new Date(0).toISOString() };
    default:
      return { id: call.id, output: `no tool \`${call.name}\` here`, is_error: true };
  }
}

function check(holds: boolean, rule: string): void {
  if (!holds) {
    console.error(`error: the runtime broke a rule: ${rule}`);
    process.exit(1);
  }
}

/** The system blocks through the agent breakpoint, and the tools. */
function agentPrefix(body: Body): string {
  const system = (body.system ?? []) as { cache_control?: unknown }[];
  const end = system.findIndex((block) => block.cache_control !== undefined);
  check(end >= 0, 'a system block carries the agent breakpoint');
  return JSON.stringify([body.tools, system.slice(0, end + 1)]);
}

/** Every cache_control marker in a body. */
function breakpoints(body: Body): number {
  return (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
}

/** Every tool_use answered by a tool_result in the next message. */
function answered(body: Body): boolean {
  const messages = (body.messages ?? []) as { content: unknown }[];
  const ids = (message: { content: unknown }, type: string, key: string): string[] =>
    Array.isArray(message.content)
      ? message.content.filter((block) => block.type === type).map((block) => block[key])
      : [];
  return messages.every(
    (message, index) =>
      index + 1 === messages.length ||
      ids(message, 'tool_use', 'id').every((id) =>
        ids(messages[index + 1], 'tool_result', 'tool_use_id').includes(id),
      ),
  );
}

/** What a turn of the agent loop sent first, and what the runtime told before it. */
interface Sent {
  number: number;
  first: Body;
  told: number;
}

/** Adds seconds to an RFC 3339 time in UTC. */
function later(at: string, seconds: number): string {
  return new Date(Date.parse(at) + seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * One turn of the agent loop at `at` (the host's clock; fixed here so the
 * run repeats): requests until the model stops calling tools.
 */
async function turn(
  conversation: Conversation,
  who: string,
  label: string,
  at: string,
  prompt: string,
): Promise<Sent> {
  const started = conversation.turn(at, prompt);
  let sent: Sent | undefined;
  for (let round = 1; round <= 8; round += 1) {
    const request = conversation.request(later(at, 20 * (round - 1)));
    const body = conversation.body('anthropic');
    sent ??= { number: started.number, first: body, told: request.messages.length };
    check(breakpoints(body) <= 4, 'at most four breakpoints');
    check(answered(body), 'every tool call is answered in the next message');
    // The label is for the local stand-in's recording (examples/hosts/
    // check_recording.py): which conversation, and whether it was resumed.
    // No provider reads it.
    const reply = await client.messages.create(body as Anthropic.MessageCreateParamsNonStreaming, {
      headers: { 'x-contrib-conversation': label },
    });
    const text = reply.content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('');
    const calls: ToolCall[] = reply.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [{ id: block.id, name: block.name, input: block.input as ToolCall['input'] }]
        : [],
    );
    conversation.modelSaid(text, calls);
    console.log(`${who}, turn ${started.number}, request ${round}: ${calls.length} tool call(s); ${text}`);
    if (calls.length === 0) {
      return sent;
    }
    conversation.toolResults(calls.map(runTool));
  }
  check(false, 'the model stops calling tools within eight rounds');
  return sent as Sent;
}

const store = mkdtempSync(join(tmpdir(), 'contrib-host-'));
try {
  // Per workspace: what its lock approved, re-checked now.
  const workspace = Workspace.open(folder);
  console.log(`workspace: ${workspace.plugins().join(', ')}`);
  check(workspace.refusedAtLoad().length === 0, 'everything the lock pins loads');

  // Two people, one agent: their conversations, each with its session log.
  const samLog = join(store, 'sam.log');
  const sam = workspace
    .conversation(samSession, { gate, reader, tools, log: samLog })
    .start();
  const priya = workspace
    .conversation(priyaSession, { gate, reader, tools, log: join(store, 'priya.log') })
    .start();
  const samFirst = await turn(sam, 'Sam', 'ts:sam', '2026-03-02T09:01:00Z', 'Can you review the login fix on branch fix-login?');
  const priyaFirst = await turn(priya, 'Priya', 'ts:priya', '2026-03-02T09:05:00Z', 'What does the review checklist say?');
  check(
    agentPrefix(samFirst.first) === agentPrefix(priyaFirst.first),
    "two people's requests to one agent are identical through the agent breakpoint",
  );
  await turn(sam, 'Sam', 'ts:sam', '2026-03-02T09:20:00Z', 'Does it need a test?');
  await turn(priya, 'Priya', 'ts:priya', '2026-03-02T09:25:00Z', 'And about errors?');

  // Stored by the host: what was said (the session log is already written).
  writeFileSync(join(store, 'sam.said.json'), JSON.stringify(sam.said()));
  check(sam.logError() === null, 'the session log was written');

  // The host restarts: the workspace opened again, Sam's conversation
  // resumed from what the host stored, appending to the same log.
  const reopened = Workspace.open(folder);
  const said: Said[] = JSON.parse(readFileSync(join(store, 'sam.said.json'), 'utf8'));
  const resumed = reopened
    .conversation(samSession, { gate, reader, tools, log: samLog })
    .resume(readFileSync(samLog, 'utf8'), said);
  const after = await turn(resumed, 'Sam (resumed)', 'ts:sam-resumed', '2026-03-02T10:00:00Z', 'I added the test. Anything else?');
  check(after.number === 3, 'turns carry on after the restart');
  check(after.told === 0, 'nothing changed while closed, so no fact is told again');
  check(
    agentPrefix(after.first) === agentPrefix(samFirst.first),
    'the resumed conversation keeps its cached prefix',
  );
  check(resumed.logError() === null, 'the resumed session log was written');
  console.log('done: two conversations, a restart and a resume');
} finally {
  rmSync(store, { recursive: true, force: true });
}

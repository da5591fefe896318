// The conformance corpus (tests/conformance in the repository) run against
// the npm package: every case's outputs equal `expected/<case>.jsonl`,
// which the Rust crate and the Python package produce too (bodies and
// records after JSON parsing, session logs byte for byte). Each case runs
// twice: once as written, and once resuming every `resume` step from the
// log and what was said that another language wrote (the expected lines),
// so a conversation started elsewhere is continued here.
//
// The corpus's workspace is installed with the command line
// (tests/conformance/setup.sh): $CONTRIB_BIN, else target/release/contrib
// or target/debug/contrib; without one the test cannot run, which fails
// under CI=true.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { Workspace } from '../index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const corpus = join(root, 'tests', 'conformance');
const ci = ['true', '1'].includes(process.env.CI ?? '');

/** Why the corpus cannot run here, or null. */
function missing() {
  if (!existsSync(join(corpus, 'setup.sh'))) {
    return `no conformance corpus at ${corpus}`;
  }
  return contribBin() ? null : 'no `contrib` binary to install the corpus workspace (set CONTRIB_BIN)';
}

function contribBin() {
  const candidates = [
    process.env.CONTRIB_BIN,
    join(root, 'target', 'release', 'contrib'),
    join(root, 'target', 'debug', 'contrib'),
  ];
  return candidates.find((path) => path && existsSync(path));
}

const unavailable = missing();
if (unavailable && ci) {
  test('the conformance corpus runs', () => {
    assert.fail(`${unavailable} (and CI=true: every check must run)`);
  });
}

let work;
before(() => {
  if (unavailable) return;
  work = mkdtempSync(join(tmpdir(), 'contrib-conformance-'));
  const setup = spawnSync('bash', [join(corpus, 'setup.sh'), work], {
    env: { ...process.env, CONTRIB_BIN: contribBin() },
    encoding: 'utf8',
  });
  assert.equal(setup.status, 0, `tests/conformance/setup.sh failed:\n${setup.stderr}`);
});
after(() => work && rmSync(work, { recursive: true, force: true }));

/** The gate a case describes: canned outputs by tool, every other tool refused. */
function cannedGate(answers = {}) {
  return (request) =>
    Object.hasOwn(answers, request.tool)
      ? { outcome: 'ran', output: answers[request.tool] }
      : { outcome: 'refused', reason: `\`${request.tool}\` is not offered to contributors here` };
}

/** The reader a case describes: texts by skill, then operation. */
function cannedReader(texts) {
  return (skill, _version, operation) => texts[skill]?.[operation];
}

/**
 * Runs `case` in `workspace`, returning its output lines. `earlier(step,
 * from)` gives what a `resume` step continues from: `{ log, said }`.
 */
function run(workspace, steps, earlier) {
  const open = new Map();
  const outputs = [];
  steps.forEach((step, index) => {
    const name = step.conversation;
    if (step.do === 'start' || step.do === 'resume') {
      const starting = workspace.conversation(step.session, {
        profile: step.profile ?? 'anthropic',
        tools: step.tools ?? [],
        gate: cannedGate(step.gate ?? {}),
        reader: step.reader ? cannedReader(step.reader) : undefined,
      });
      if (step.do === 'start') {
        open.set(name, starting.start());
      } else {
        const { log, said } = earlier(index, step.from, open);
        open.delete(step.from);
        open.set(name, starting.resume(log, said));
      }
      return;
    }
    const conversation = open.get(name);
    assert.ok(conversation, `step ${index}: no conversation \`${name}\``);
    const line = { step: index, do: step.do, conversation: name };
    switch (step.do) {
      case 'turn':
        conversation.turn(step.input, step.prompt ?? null);
        break;
      case 'request':
        conversation.request(step.input);
        break;
      case 'model_said':
        conversation.modelSaid(step.text ?? '', step.calls ?? []);
        break;
      case 'tool_results':
        conversation.toolResults(step.results);
        break;
      case 'compact':
        conversation.compact(step.kept);
        break;
      case 'body':
        outputs.push({
          ...line,
          wire: step.wire,
          body: conversation.body(step.wire),
          record: conversation.bodyRecord(step.wire),
        });
        break;
      case 'log':
        outputs.push({ ...line, log: conversation.sessionLog() });
        break;
      case 'said':
        outputs.push({ ...line, said: conversation.said() });
        break;
      default:
        assert.fail(`step ${index}: there is no step \`${step.do}\``);
    }
  });
  return outputs;
}

/** The conversation `from` as this run left it. */
function fromThisRun(_index, from, open) {
  const conversation = open.get(from);
  assert.ok(conversation, `no conversation \`${from}\` to resume`);
  return { log: conversation.sessionLog(), said: conversation.said() };
}

/** The conversation `from` as another language left it: its last expected `log` and `said` lines before step `index`. */
function fromExpected(expected) {
  return (index, from) => {
    const last = (what) =>
      expected.filter((line) => line.conversation === from && line.do === what && line.step < index).at(-1);
    const log = last('log');
    const said = last('said');
    assert.ok(log && said, `the expected lines hold no log and said of \`${from}\` before step ${index}`);
    return { log: log.log, said: said.said };
  };
}

const cases = unavailable
  ? []
  : readdirSync(join(corpus, 'cases'))
      .filter((file) => file.endsWith('.json'))
      .sort();

test('the corpus has its cases', { skip: unavailable ?? false }, () => {
  assert.ok(cases.length >= 5, `${cases.length} cases`);
});

for (const file of cases) {
  const name = file.slice(0, -'.json'.length);
  const { steps } = JSON.parse(readFileSync(join(corpus, 'cases', file), 'utf8'));
  const expected = readFileSync(join(corpus, 'expected', `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

  test(`${name}: the outputs are the expected lines`, () => {
    const outputs = run(Workspace.open(join(work, 'workspace')), steps, fromThisRun);
    compare(outputs, expected);
  });

  if (steps.some((step) => step.do === 'resume')) {
    test(`${name}: resumed from another language's log and said`, () => {
      const outputs = run(Workspace.open(join(work, 'workspace')), steps, fromExpected(expected));
      compare(outputs, expected);
    });
  }
}

function compare(outputs, expected) {
  assert.equal(outputs.length, expected.length, 'as many outputs as expected lines');
  outputs.forEach((got, index) => {
    // Both sides as JSON has them: what crossed from Rust to JavaScript
    // compared after one JSON round trip, as another language reads it.
    assert.deepStrictEqual(
      JSON.parse(JSON.stringify(got)),
      expected[index],
      `step ${expected[index].step} (${expected[index].do} of ${expected[index].conversation})`,
    );
  });
}

/** The `start` step of a case, and the case's steps. */
function startStep(name) {
  const { steps } = JSON.parse(readFileSync(join(corpus, 'cases', `${name}.json`), 'utf8'));
  return steps.find((step) => step.do === 'start');
}

test('what the gate throws is thrown by the method that reached it', { skip: unavailable ?? false }, () => {
  const step = startStep('eager-gate-refusal');
  const workspace = Workspace.open(join(work, 'workspace'));
  const failing = new Error('the gate is down');
  let asked = 0;
  const starting = workspace.conversation(step.session, {
    tools: step.tools,
    gate: () => {
      asked += 1;
      throw failing;
    },
  });
  assert.throws(() => starting.start(), (error) => error === failing);
  assert.ok(asked >= 1, 'the eager runs asked the gate');
  // The next conversation is not left with the earlier exception.
  const conversation = workspace
    .conversation(step.session, { tools: step.tools, gate: cannedGate(step.gate) })
    .start();
  conversation.turn({ at: '2026-03-02T09:01:00Z' }, 'Hello');
});

test('a gate may answer with the output alone', { skip: unavailable ?? false }, () => {
  const step = startStep('eager-gate-refusal');
  const workspace = Workspace.open(join(work, 'workspace'));
  const canned = cannedGate(step.gate);
  const outputAlone = (request) => canned(request).output ?? canned(request);
  const bodies = [canned, outputAlone].map((gate) => {
    const conversation = workspace.conversation(step.session, { tools: step.tools, gate }).start();
    conversation.turn({ at: '2026-03-02T09:01:00Z' }, 'Hello');
    conversation.request({ at: '2026-03-02T09:01:00Z' });
    return conversation.body('anthropic');
  });
  assert.deepStrictEqual(bodies[1], bodies[0]);
  assert.match(JSON.stringify(bodies[0]), /The release is on Thursday\./);
});

test('the reader hears the skill, its version and the operation', { skip: unavailable ?? false }, () => {
  const step = startStep('restart-resume');
  const heard = [];
  Workspace.open(join(work, 'workspace'))
    .conversation(step.session, {
      tools: step.tools,
      gate: cannedGate(step.gate),
      reader: (...asked) => {
        heard.push(asked);
        return cannedReader(step.reader)(...asked);
      },
    })
    .start();
  assert.deepEqual(heard, [['code-review', '2.3.0', 'diff']]);
});

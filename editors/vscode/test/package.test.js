// What the .vsix carries and what package.json promises: a handful of files,
// every file package.json points at among them, the repository and version
// the same as the crate's, the schemas the ones in the repository's schema/,
// and every setting, matcher and task documented in the README.
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { REPOSITORY } = require('./support/contrib');

const ROOT = path.resolve(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const cargo = fs.readFileSync(path.join(REPOSITORY, 'Cargo.toml'), 'utf8');
const crate = {
  repository: /^repository = "(.*)"$/m.exec(cargo)[1],
  version: /^version = "(.*)"$/m.exec(cargo)[1],
};
const relative = (file) => path.posix.normalize(file.replace(/^\.\//, ''));

/** The files package.json points at inside the extension. */
function referenced() {
  const c = manifest.contributes;
  return [
    manifest.main,
    manifest.icon,
    ...c.languages.map((l) => l.configuration),
    ...c.grammars.map((g) => g.path),
    ...c.jsonValidation.map((v) => v.url),
  ].map(relative);
}

test('the .vsix holds a handful of files, every one package.json points at among them', () => {
  const vsce = path.join(ROOT, 'node_modules', '.bin', 'vsce');
  const listed = execFileSync(vsce, ['ls', '--no-dependencies'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .sort();
  assert.deepEqual(listed, [
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'dist/extension.js',
    'images/icon.png',
    'language-configuration.json',
    'package.json',
    'schemas/bundle.schema.json',
    'syntaxes/contrib.tmLanguage.json',
  ]);
  for (const file of referenced()) assert.ok(listed.includes(file), `${file} is referenced but not packaged`);
  for (const file of listed) assert.ok(fs.existsSync(path.join(ROOT, file)), `${file} is listed but not built`);
});

test('publisher, repository and version are real and agree with the crate', () => {
  assert.match(manifest.publisher, /^[a-z0-9][a-z0-9-]*$/);
  assert.equal(manifest.repository.url, crate.repository);
  assert.equal(manifest.repository.directory, 'editors/vscode');
  assert.ok(manifest.homepage.startsWith(crate.repository + '/'));
  assert.ok(manifest.bugs.url.startsWith(crate.repository + '/'));
  assert.equal(manifest.version, crate.version);
  assert.notEqual(manifest.icon, undefined);
});

test('the icon is a PNG of at least 128 by 128 pixels', () => {
  const png = fs.readFileSync(path.join(ROOT, manifest.icon));
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128);
});

test('*.bundle.json is validated with the repository schema, shipped in the extension', () => {
  const [bundle] = manifest.contributes.jsonValidation;
  assert.equal(bundle.fileMatch, '*.bundle.json');
  const shipped = fs.readFileSync(path.join(ROOT, relative(bundle.url)));
  assert.deepEqual(shipped, fs.readFileSync(path.join(REPOSITORY, 'schema', 'bundle.schema.json')));
});

test('contrib.toml is validated with schema/contrib-toml.schema.json at this version', () => {
  const [toml] = manifest.contributes.tomlValidation;
  assert.equal(toml.fileMatch, 'contrib.toml');
  // Even Better TOML hands the URL to its server as it is, so it must be
  // absolute: the schema in the repository, at the release's tag.
  const raw = crate.repository.replace('https://github.com/', 'https://raw.githubusercontent.com/');
  assert.equal(toml.url, `${raw}/v${crate.version}/schema/contrib-toml.schema.json`);
  const schema = path.join(REPOSITORY, 'schema', 'contrib-toml.schema.json');
  assert.equal(typeof JSON.parse(fs.readFileSync(schema, 'utf8')), 'object');
});

test('the README documents every setting, matcher and the task type', () => {
  const names = [
    ...Object.keys(manifest.contributes.configuration.properties),
    ...manifest.contributes.problemMatchers.map((m) => `$${m.name}`),
    ...manifest.contributes.taskDefinitions.map((d) => `"type": "${d.type}"`),
    ...manifest.contributes.commands.map((c) => c.title),
  ];
  for (const name of names) assert.ok(readme.includes(name), `README.md does not mention ${name}`);
});

test('the workflow tests against a built contrib, packages, and publishes with the two tokens', () => {
  const yaml = require('js-yaml');
  const workflow = yaml.load(fs.readFileSync(path.join(REPOSITORY, '.github', 'workflows', 'vscode.yml'), 'utf8'));
  const steps = (job) => workflow.jobs[job].steps;
  const run = (job) => steps(job).map((step) => step.run || '').join('\n');
  assert.match(run('package'), /cargo build --release --locked --bin contrib/);
  const tested = steps('package').find((step) => step.run === 'npm test');
  assert.match(tested.env.CONTRIB_BIN, /target\/release\/contrib$/);
  assert.match(run('package'), /npm run package/);
  assert.ok(manifest.scripts.package.includes('vsce package --no-dependencies'));
  assert.ok(manifest.scripts['vscode:prepublish'].includes('--release'));
  assert.deepEqual(workflow.on.push.tags, ['v*']);
  assert.match(workflow.jobs.publish.if, /refs\/tags\/v/);
  const publish = steps('publish');
  const marketplace = publish.find((step) => step.env && step.env.VSCE_PAT);
  const openVsx = publish.find((step) => step.env && step.env.OVSX_PAT);
  assert.equal(marketplace.env.VSCE_PAT, '${{ secrets.VSCE_PAT }}');
  assert.match(marketplace.run, /vsce publish --no-dependencies --packagePath "\$VSIX"/);
  assert.equal(openVsx.env.OVSX_PAT, '${{ secrets.OVSX_PAT }}');
  assert.match(openVsx.run, /ovsx publish "\$VSIX"/);
  // Without a token, a registry is skipped with a warning, not failed.
  for (const step of [marketplace, openVsx]) assert.match(step.run, /if \[ -z "\$\w+_PAT" \]; then[\s\S]*::warning::[\s\S]*exit 0/);
});

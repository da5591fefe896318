// The real `contrib` binary for the tests, and temporary workspaces.
//
// CI builds the binary once for the whole repository and passes it in
// CONTRIB_BIN (.ci/run); run locally, the tests take the newest build under
// target/. Without one they are skipped, saying why, except under CI=true,
// where a test that cannot run fails (as the Rust tests do:
// tests/it/common/unavailable.rs).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const REPOSITORY = path.resolve(__dirname, '..', '..', '..', '..');

/** The binary's path, or a reason there is none. */
function findContrib() {
  const given = process.env.CONTRIB_BIN;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`CONTRIB_BIN is ${given}, which does not exist`);
    return { binary: path.resolve(given) };
  }
  const built = ['release', 'debug']
    .map((profile) => path.join(REPOSITORY, 'target', profile, 'contrib'))
    .filter((file) => fs.existsSync(file))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (built.length > 0) return { binary: built[0] };
  const why = 'no contrib binary: build it with `cargo build` or set CONTRIB_BIN';
  if (['true', '1'].includes(process.env.CI)) throw new Error(`this test cannot run, and CI=true: ${why}`);
  return { skip: why };
}

/** A temporary folder with `files` ({ relative path: text }) written into it. */
function workspace(files = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'contrib-vscode-')));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

module.exports = { REPOSITORY, findContrib, workspace };

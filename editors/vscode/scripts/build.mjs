// Builds what the extension ships into dist/ and schemas/:
//   dist/extension.js   src/extension.js and vscode-languageclient, bundled by
//                       esbuild into one CommonJS file (`vscode` stays external)
//   schemas/            the JSON Schemas package.json points at, copied from the
//                       repository's schema/ folder so the .vsix carries them
//
//   node scripts/build.mjs            development build, with a source map
//   node scripts/build.mjs --release  minified, no source map (what is packaged)
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const release = process.argv.includes('--release');

/** Schemas shipped inside the extension, from the repository's schema/. */
const SCHEMAS = ['bundle.schema.json'];

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'src', 'extension.js')],
  outfile: join(root, 'dist', 'extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  minify: release,
  sourcemap: release ? false : 'linked',
  legalComments: 'eof',
  logLevel: 'warning',
});

mkdirSync(join(root, 'schemas'), { recursive: true });
for (const name of SCHEMAS) {
  copyFileSync(join(root, '..', '..', 'schema', name), join(root, 'schemas', name));
}
console.log(`built dist/extension.js (${release ? 'release' : 'development'}) and schemas/`);

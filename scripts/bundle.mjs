#!/usr/bin/env node
// The start-up bundle (README "Start-up"): after tsc has written dist/, esbuild bundles the command line from src/ into
// one CommonJS file, dist/plegscope.cjs, that bin/plegscope runs through node:vm with V8's code cache. One file and
// one compile instead of ~90 ES modules resolved, read and compiled one by one on every run.
//
// - Our modules are all in it, each evaluated when first needed (esbuild keeps a dynamic import() lazy), so a
//   subcommand's or a flag's code costs nothing on a run that does not use it. commander, strip-ansi and js-yaml are
//   bundled too (commander is loaded on every run: in the bundle it is under the code cache).
// - Other packages stay where npm put them, required when first used (luxon, re2js, tar-stream, fzstd, xz-decompress).
// - The TUI and the MCP server (ink, react, the MCP SDK: ES modules, some with top-level await) are not in it:
//   bin/plegscope starts `tui` and `mcp` from the module tree dist/cli/main.js, as every command started before.
// - `import.meta.url` of a module is the URL of its tsc twin in dist/ (the worker pool starts dist/sources/files/
//   worker.js next to pool.js, as it does from the module tree).
// - The first line names the SHA-256 of the rest: the code cache is keyed on it (an upgrade never meets an old cache).
//
//   node scripts/bundle.mjs      (npm run build runs it after tsc)
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFile, writeFile, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, 'dist', 'plegscope.cjs');
/** Packages inside the bundle; every other bare import stays a require() of the installed package. */
const BUNDLED = new Set(['commander', 'strip-ansi', 'ansi-regex', 'js-yaml']);
/** Folders of src/ that the bundle leaves to the module tree (bin/plegscope routes their commands there). */
const TREE_ONLY = /^\.\.\/(tui|mcp)\//;

const plugin = {
  name: 'plegscope-bundle',
  setup(b) {
    // Two built-in modules cost every start more than they are worth there (figures: README "Start-up"):
    // node:module (+20 M instructions: it loads the ES loader) is asked only for createRequire, and in the bundle every
    // module's require is the bundle's own (dist/, the same node_modules above); commander's node:child_process
    // (+11 M: net, dgram, …) serves only its executable subcommands, which plegscope has none of: loaded if ever used.
    b.onResolve({ filter: /^node:module$/ }, (a) => (a.importer.startsWith(SRC) ? { path: 'module', namespace: 'plegscope' } : undefined));
    b.onLoad({ filter: /^module$/, namespace: 'plegscope' }, () => ({ contents: 'export const createRequire = () => require;', loader: 'js' }));
    b.onResolve({ filter: /^node:child_process$/ }, (a) => (a.importer.includes(`${join('node_modules', 'commander')}`) ? { path: 'child_process', namespace: 'plegscope' } : undefined));
    b.onLoad({ filter: /^child_process$/, namespace: 'plegscope' }, () => ({ contents: "module.exports = { spawn: (...a) => require('node:child_process').spawn(...a) };", loader: 'js' }));
    b.onResolve({ filter: /^[^./]/ }, (a) => {
      if (a.path.startsWith('node:')) return { path: a.path, external: true };
      const pkg = a.path.startsWith('@') ? a.path.split('/').slice(0, 2).join('/') : a.path.split('/')[0];
      return BUNDLED.has(pkg) ? undefined : { path: a.path, external: true };
    });
    // src/cli/commander.ts requires commander at run time (cheaper than an ES import of CommonJS in the module tree);
    // in the bundle the same three names come from the bundled package.
    b.onResolve({ filter: /^\.\/commander\.js$/ }, (a) => (dirname(a.importer) === join(SRC, 'cli') ? { path: 'commander-bundled', namespace: 'plegscope' } : undefined));
    b.onLoad({ filter: /^commander-bundled$/, namespace: 'plegscope' }, () => ({
      contents: "export { Command, CommanderError, Option } from 'commander';",
      resolveDir: ROOT,
      loader: 'js',
    }));
    b.onResolve({ filter: TREE_ONLY }, (a) => ({ path: a.path, namespace: 'tree-only' }));
    b.onLoad({ filter: /.*/, namespace: 'tree-only' }, (a) => ({
      contents: `throw new Error(${JSON.stringify(`${a.path.slice(3)} is not in the start-up bundle: bin/plegscope starts this command from dist/cli/main.js`)});`,
      loader: 'js',
    }));
    b.onLoad({ filter: /\.tsx?$/ }, async (a) => {
      let text = await readFile(a.path, 'utf8');
      if (text.includes('import.meta.url')) {
        const twin = relative(SRC, a.path).replace(/\.tsx?$/, '.js').split('\\').join('/');
        text = text.replaceAll('import.meta.url', `__plegscopeDistUrl(${JSON.stringify(twin)})`);
      }
      return { contents: text, loader: a.path.endsWith('.tsx') ? 'tsx' : 'ts' };
    });
  },
};

const result = await build({
  entryPoints: [join(SRC, 'cli', 'main.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax only: names stay, so --debug stack traces still say which function.
  minifyWhitespace: true,
  minifySyntax: true,
  // ASCII only, so bin/plegscope reads it as latin1 (no UTF-8 decoding) and V8 keeps it as a one-byte string.
  charset: 'ascii',
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
  plugins: [plugin],
});
// A Node built-in imported for its default export (`import fs from 'node:fs'`) comes through esbuild's __toESM, which
// defines a getter for each of the module's properties on a new object, in each importing module (~16 of them, 100
// properties each for node:fs: ~2 ms and ~100 page faults a start). A built-in is a plain CommonJS object and never an
// ES module: an object inheriting from it, with the module as its `default`, reads the same.
const esm = result.outputFiles[0].text;
if (!esm.startsWith('"use strict";')) throw new Error('bundle: esbuild\'s output no longer starts with "use strict"');
const body = `"use strict";var __builtin=(m)=>Object.create(m,{default:{value:m,enumerable:!0}});${esm.slice(13).replace(/__toESM\(require\("(node:[\w/]+)"\)(?:,\s*1)?\)/g, '__builtin(require("$1"))')}`;
if (/__toESM\(require\("node:/.test(body)) throw new Error('bundle: a built-in is still imported through __toESM');
// Left non-ASCII by esbuild only inside regular expression literals: written as \uXXXX escapes, which mean the same code
// units there (and in strings); no String.raw template in src/ could tell the difference.
const escaped = body.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// Written wrapped as the function bin/plegscope calls (its CommonJS arguments and the tsc twin's URL): the launcher
// compiles the file's text as it is. Wrapping it there made a second string of the bundle's length that V8 then
// flattened into a third (~230 page faults, ~4 ms a start on this machine).
const ascii = `(function (exports, require, module, __filename, __dirname, __plegscopeDistUrl) {${escaped}\n})`;
const sha = createHash('sha256').update(ascii).digest('hex');
await rm(OUT, { force: true });
await writeFile(OUT, `/* plegscope start-up bundle sha256=${sha} */\n${ascii}`);
console.error(`bundle: ${relative(ROOT, OUT)} ${(ascii.length / 1024).toFixed(0)} KiB sha256=${sha.slice(0, 16)}…`);

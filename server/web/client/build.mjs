// Bundles the client into OUTDIR (default ./dist): index.html, app/app.js,
// app/app.css, and app/huddle.js (the huddle's audio, imported only on
// joining one). embed.cmake then turns those four files into C++.
//   node build.mjs [OUTDIR]
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2] ?? 'dist';
mkdirSync(join(out, 'app'), { recursive: true });
const common = { bundle: true, minify: true, format: 'esm', target: 'es2020', legalComments: 'none', logLevel: 'warning' };
await build({
  ...common,
  entryPoints: ['src/main.jsx'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  external: ['/app/huddle.js'],  // the dynamic import() stays a request to the relay
  outfile: join(out, 'app', 'app.js'),
});
await build({ ...common, entryPoints: ['src/huddle_audio.js'], outfile: join(out, 'app', 'huddle.js') });
copyFileSync('src/index.html', join(out, 'index.html'));
copyFileSync('src/app.css', join(out, 'app', 'app.css'));

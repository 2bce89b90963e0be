// Bundles the client into OUTDIR (default ./dist): index.html, app/app.js,
// app/app.css. embed.cmake then turns those three files into C++.
//   node build.mjs [OUTDIR]
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2] ?? 'dist';
mkdirSync(join(out, 'app'), { recursive: true });
await build({
  entryPoints: ['src/main.jsx'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: join(out, 'app', 'app.js'),
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync('src/index.html', join(out, 'index.html'));
copyFileSync('src/app.css', join(out, 'app', 'app.css'));

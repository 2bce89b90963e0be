// Bundles the client into OUTDIR (default ./dist): index.html, app/app.js,
// app/app.css, and app/huddle.js (the huddle's audio, imported only on
// joining one); each also precompressed (.br, .gz). index.html names the
// others by their content hash (app/app-<hash>.js…, cached for good by
// browsers), and app.js imports huddle.js by its own. manifest.txt lists
// "file hashed-name" for embed.cmake, which turns it all into C++.
//   node build.mjs [OUTDIR]
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import zlib from 'node:zlib';

const out = process.argv[2] ?? 'dist';
mkdirSync(join(out, 'app'), { recursive: true });
const common = { bundle: true, minify: true, format: 'esm', target: 'es2020', legalComments: 'none', logLevel: 'warning' };
await build({ ...common, entryPoints: ['src/huddle_audio.js'], outfile: join(out, 'app', 'huddle.js') });
await build({
  ...common,
  entryPoints: ['src/main.jsx'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  external: ['/app/huddle.js'],  // the dynamic import() stays a request to the relay
  outfile: join(out, 'app', 'app.js'),
});
copyFileSync('src/app.css', join(out, 'app', 'app.css'));

// app/app.js -> app/app-0123456789ab.js, by its bytes.
const hashed = (name) => {
  const hash = createHash('sha256').update(readFileSync(join(out, name))).digest('hex').slice(0, 12);
  return name.replace(/\.(\w+)$/, `-${hash}.$1`);
};
const rewrite = (name, from, to) => writeFileSync(join(out, name), readFileSync(join(out, name), 'utf8').replaceAll(from, to));
const names = { 'app/huddle.js': hashed('app/huddle.js'), 'app/app.css': hashed('app/app.css') };
rewrite('app/app.js', '"/app/huddle.js"', `"/${names['app/huddle.js']}"`);
names['app/app.js'] = hashed('app/app.js');
copyFileSync('src/index.html', join(out, 'index.html'));
for (const name of ['app/app.js', 'app/app.css']) rewrite('index.html', `"/${name}"`, `"/${names[name]}"`);

for (const name of ['index.html', 'app/app.js', 'app/app.css', 'app/huddle.js']) {
  const bytes = readFileSync(join(out, name));
  writeFileSync(join(out, name + '.br'), zlib.brotliCompressSync(bytes, { params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
  writeFileSync(join(out, name + '.gz'), zlib.gzipSync(bytes, { level: 9 }));
}
writeFileSync(join(out, 'manifest.txt'), ['index.html index.html', ...Object.entries(names).map(([k, v]) => `${k} ${v}`)].join('\n') + '\n');

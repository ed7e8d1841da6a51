// Precompresses a built site for `cargo xtask dist`: writes NAME.br (brotli,
// quality 11) and NAME.gz (gzip -9) beside every page asset under DIR, so a
// static host (and `cargo xtask serve`) can send the smaller copy without
// compressing on each request. A copy that would not be smaller than its
// file is not written: the host then sends the file as it is.
// Usage: node compress.mjs DIR
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const COMPRESSIBLE = new Set([".wasm", ".js", ".mjs", ".css", ".html", ".toml", ".json", ".svg", ".txt"]);

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile() && COMPRESSIBLE.has(extname(entry.name))) yield path;
  }
}

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node compress.mjs DIR");
  process.exit(2);
}
const totals = { raw: 0, br: 0, gz: 0 };
const row = (name, raw, br, gz) =>
  console.log(`  ${name.padEnd(36)} ${String(raw).padStart(10)} ${String(br).padStart(10)} ${String(gz).padStart(10)}`);
row("file", "raw bytes", "brotli", "gzip -9");
for (const path of [...files(dir)].sort()) {
  const data = readFileSync(path);
  const text = extname(path) !== ".wasm";
  const br = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: text ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  const gz = gzipSync(data, { level: 9 });
  // Each copy is only worth serving when it is smaller.
  const kept = (copy) => (copy.length < data.length ? copy.length : data.length);
  if (br.length < data.length) writeFileSync(`${path}.br`, br);
  if (gz.length < data.length) writeFileSync(`${path}.gz`, gz);
  totals.raw += data.length;
  totals.br += kept(br);
  totals.gz += kept(gz);
  row(relative(dir, path), data.length, kept(br), kept(gz));
}
row("total", totals.raw, totals.br, totals.gz);

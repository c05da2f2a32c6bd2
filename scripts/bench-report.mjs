// Wraps the kernel benchmark's raw output (attnscope_bench, native and wasm) with the machine it ran
// on as bench/results/native.json and wasm-node.json, then writes every generated table of the docs
// from bench/results/ (bench/tables.mjs).
//   node scripts/bench-report.mjs build/bench-native.json build/bench-wasm.json
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { execFileSync } from 'node:child_process';
import { writeTables } from '../bench/tables.mjs';

const [nativeFile, wasmFile] = process.argv.slice(2);
if (!nativeFile || !wasmFile) throw new Error('usage: node scripts/bench-report.mjs NATIVE.json WASM.json (the raw output of attnscope_bench)');
const cpu = cpus()[0]?.model ?? 'unknown';
const compiler = (cmd) => { try { return execFileSync(cmd, ['--version'], { encoding: 'utf8' }).split('\n')[0]; } catch { return 'unknown'; } };
const date = new Date().toISOString().slice(0, 10);
const runs = {
  native: { file: 'bench/results/native.json', raw: nativeFile, env: { cpu, cores: cpus().length, compiler: compiler('g++'), flags: '-O3 (CMake Release), x86-64 baseline: SIMD = SSE2, 4 lanes' } },
  'wasm-node': { file: 'bench/results/wasm-node.json', raw: wasmFile, env: { cpu, cores: cpus().length, compiler: compiler('em++'), node: process.version, flags: '-O3 -msimd128 -msse4.1 (xsimd sse4.1 lowered to wasm simd128), run with node --no-liftoff' } },
};
for (const r of Object.values(runs)) {
  r.cases = JSON.parse(readFileSync(r.raw, 'utf8'));
  writeFileSync(r.file, JSON.stringify({ date, ...r.env, cases: r.cases }, null, 1) + '\n');
}

const changed = writeTables();
console.log(`bench/results/native.json, wasm-node.json written; tables rewritten in ${changed.length ? changed.join(', ') : 'no doc (none changed)'}`);

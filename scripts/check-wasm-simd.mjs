// Build check: disassembles a wasm file linked with function names (tests/cpp/simd_probe.cpp) and
// proves that every f32_*__simd kernel really contains f32x4 arithmetic, and every f32_*__scalar
// kernel none (the scalar reference is compiled without auto-vectorisation). Exit code 1 otherwise.
//   node scripts/check-wasm-simd.mjs path/to/module.wasm
import { execFileSync } from 'node:child_process';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/check-wasm-simd.mjs module.wasm');
  process.exit(2);
}
let text;
try {
  text = execFileSync('wasm-objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 256 << 20 });
} catch (e) {
  console.error(`check-wasm-simd: wasm-objdump failed (${e.message}); install Debian's wabt (scripts/bootstrap.sh does)`);
  process.exit(1);
}

// Split the disassembly into functions: "<offset> func[<n>] <name>:" starts one.
const kernels = new Map();
let current = null;
for (const line of text.split('\n')) {
  const head = line.match(/^[0-9a-f]+ func\[\d+\] <(.*)>:$/);
  if (head) {
    const m = head[1].match(/(f32_[a-z0-9_]+?__(simd|scalar))\(/);
    current = m ? { name: m[1], variant: m[2], f32x4: 0, v128: 0 } : null;
    if (current) kernels.set(current.name, current);
    continue;
  }
  if (!current) continue;
  if (/\bf32x4\.(add|sub|mul|div|max|min|sqrt|neg|abs|pmax|pmin|lt|gt|le|ge|eq|ne)\b/.test(line)) current.f32x4++;
  if (/\bv128\./.test(line)) current.v128++;
}

const simd = [...kernels.values()].filter((k) => k.variant === 'simd');
const scalar = [...kernels.values()].filter((k) => k.variant === 'scalar');
let failures = 0;
if (simd.length === 0) {
  console.error('check-wasm-simd: no f32_*__simd kernels found: were function names kept (--profiling-funcs)?');
  failures++;
}
for (const k of simd) {
  const ok = k.f32x4 > 0;
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${k.name.padEnd(36)} ${String(k.f32x4).padStart(4)} f32x4 arithmetic ops`);
}
for (const k of scalar) {
  const ok = k.f32x4 === 0;
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${k.name.padEnd(36)} ${String(k.f32x4).padStart(4)} f32x4 ops (the reference must stay scalar)`);
}
console.log(`check-wasm-simd: ${simd.length} simd and ${scalar.length} scalar kernels checked, ${failures} failures`);
process.exit(failures ? 1 : 0);

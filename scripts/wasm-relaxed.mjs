#!/usr/bin/env node
// The relaxed-SIMD build's post-link step: Debian's Emscripten 3.1.6 (LLVM 14) compiles
// __builtin_wasm_fma_f32x4 under -mrelaxed-simd, but writes it as the relaxed-SIMD proposal's
// *prototype* opcode (0xfd 0xaf 0x01), which no engine accepts today; the final f32x4.relaxed_madd
// is 0xfd 0x85 0x02. Both are a 0xfd prefix and a two-byte LEB128, so the rewrite moves no byte.
// (The operand order differs too: the prototype meant a + b·c, the final op means a·b + c; the
// kernels call the builtin with the final order in mind: src/kernels/simd_tiles.hpp, madd.)
//
// The code section is walked instruction by instruction, every immediate decoded, so only an opcode
// is ever rewritten, never a byte of a constant, an offset or a shuffle mask that happens to hold the
// same values. Any other prototype relaxed-SIMD opcode, or an opcode this walker does not know, fails
// the build rather than ship a module no engine loads.
//   node scripts/wasm-relaxed.mjs IN.wasm OUT.wasm      writes OUT, prints what it rewrote
import { readFileSync, writeFileSync } from 'node:fs';

const PROTO_FMA = 0xaf;          // f32x4.fma (prototype)
const FINAL_MADD = 0x105;        // f32x4.relaxed_madd
// LLVM 14's other prototype relaxed-SIMD opcodes that no final SIMD instruction uses (fms, the f64x2
// pair, laneselects, relaxed min/max, swizzle, truncations): none may appear, since none is rewritten
// here. (Whatever else could slip through, the rewritten module is validated below.)
const PROTO_OTHER = new Set([0xb0, 0xcf, 0xd0, 0xb2, 0xb3, 0xd2, 0xd3, 0xb4, 0xe2, 0xd4, 0xee, 0xa2, 0xa5, 0xa6, 0xc5, 0xc6]);

// The instructions without immediates: unreachable, nop, else, end, return, drop, select, the numeric
// operators (sign extension included) and ref.is_null.
const NO_IMMEDIATE = (op) => op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b ||
  (op >= 0x45 && op <= 0xc4) || op === 0xd1;

class Reader {
  constructor(bytes, at = 0) { this.b = bytes; this.at = at; }
  byte() {
    if (this.at >= this.b.length) throw new Error(`wasm-relaxed: unexpected end of the module at byte ${this.at}`);
    return this.b[this.at++];
  }
  u32() {  // unsigned LEB128
    let result = 0, shift = 0, b;
    do {
      b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return result;
  }
  sleb() {  // signed LEB128 (skipped, value unused)
    let b;
    do b = this.byte(); while (b & 0x80);
  }
  skip(n) { this.at += n; }
  memarg() { this.u32(); this.u32(); }
  blocktype() {
    const b = this.b[this.at];
    if (b === 0x40 || b === 0x7f || b === 0x7e || b === 0x7d || b === 0x7c || b === 0x7b || b === 0x70 || b === 0x6f) this.at++;
    else this.sleb();  // a type index (s33)
  }
}

/**
 * One function body's instructions [start, end): rewrites the prototype fma in place; returns how many,
 * and counts the final relaxed_madd instructions it meets in counts.madd.
 */
function walkBody(bytes, start, end, where, counts) {
  const r = new Reader(bytes, start);
  let rewritten = 0;
  const groups = r.u32();  // locals
  for (let g = 0; g < groups; g++) { r.u32(); r.byte(); }
  while (r.at < end) {
    const at = r.at;
    const op = r.byte();
    if (op === 0x02 || op === 0x03 || op === 0x04) r.blocktype();
    else if (op === 0x0c || op === 0x0d || op === 0x10 || (op >= 0x20 && op <= 0x26) || op === 0xd2) r.u32();
    else if (op === 0x0e) { const n = r.u32(); for (let i = 0; i <= n; i++) r.u32(); }
    else if (op === 0x11) { r.u32(); r.u32(); }
    else if (op === 0x1c) { const n = r.u32(); r.skip(n); }
    else if (op >= 0x28 && op <= 0x3e) r.memarg();
    else if (op === 0x3f || op === 0x40) r.u32();
    else if (op === 0x41 || op === 0x42) r.sleb();
    else if (op === 0x43) r.skip(4);
    else if (op === 0x44) r.skip(8);
    else if (op === 0xd0) r.byte();
    else if (op === 0xfc) {
      const sub = r.u32();
      if (sub <= 7) { /* saturating truncations */ }
      else if (sub === 8) { r.u32(); r.byte(); }
      else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) r.u32();
      else if (sub === 10) { r.byte(); r.byte(); }
      else if (sub === 11) r.byte();
      else if (sub === 12 || sub === 14) { r.u32(); r.u32(); }
      else throw new Error(`wasm-relaxed: unknown instruction 0xfc ${sub} at byte ${at} (${where})`);
    } else if (op === 0xfd) {
      const subAt = r.at;
      const sub = r.u32();
      if (sub <= 0x0b || sub === 0x5c || sub === 0x5d) r.memarg();
      else if (sub === 0x0c || sub === 0x0d) r.skip(16);
      else if (sub >= 0x15 && sub <= 0x22) r.byte();
      else if (sub >= 0x54 && sub <= 0x5b) { r.memarg(); r.byte(); }
      else if (sub === PROTO_FMA) {
        if (r.at - subAt !== 2) throw new Error(`wasm-relaxed: f32x4.fma at byte ${at} has a ${r.at - subAt}-byte opcode, expected 2`);
        bytes[subAt] = 0x80 | (FINAL_MADD & 0x7f);
        bytes[subAt + 1] = FINAL_MADD >> 7;
        rewritten++;
      } else if (PROTO_OTHER.has(sub)) {
        throw new Error(`wasm-relaxed: prototype relaxed-SIMD opcode 0xfd 0x${sub.toString(16)} at byte ${at} (${where}) has no rewrite; use only madd`);
      } else if (sub === FINAL_MADD) {
        counts.madd++;
      } else if (sub > 0x113) {  // (0x100-0x113: the final relaxed-SIMD instructions, no immediates)
        throw new Error(`wasm-relaxed: unknown SIMD instruction 0xfd 0x${sub.toString(16)} at byte ${at} (${where})`);
      }
    } else if (!NO_IMMEDIATE(op)) {
      throw new Error(`wasm-relaxed: unknown opcode 0x${op.toString(16)} at byte ${at} (${where})`);
    }
  }
  if (r.at !== end) throw new Error(`wasm-relaxed: ${where} ends at byte ${r.at}, not at its declared end ${end}`);
  return rewritten;
}

/**
 * Rewrites `bytes` (a wasm module) in place; returns { functions, rewritten, madd } (madd: final
 * relaxed_madd instructions already there, so a rewritten module can be checked by walking it again).
 */
export function rewriteRelaxed(bytes) {
  const r = new Reader(bytes, 0);
  const magic = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (!magic.every((m, i) => bytes[i] === m)) throw new Error('wasm-relaxed: not a wasm module (version 1)');
  r.at = 8;
  let functions = 0, rewritten = 0, code = false;
  const counts = { madd: 0 };
  while (r.at < bytes.length) {
    const id = r.byte(), size = r.u32(), start = r.at, end = start + size;
    if (id === 10) {
      code = true;
      const count = r.u32();
      for (let f = 0; f < count; f++) {
        const bodySize = r.u32(), bodyStart = r.at;
        rewritten += walkBody(bytes, bodyStart, bodyStart + bodySize, `function body ${f}`, counts);
        r.at = bodyStart + bodySize;
        functions++;
      }
      if (r.at !== end) throw new Error('wasm-relaxed: the code section does not end where it says');
    }
    r.at = end;
  }
  if (!code) throw new Error('wasm-relaxed: the module has no code section');
  return { functions, rewritten, madd: counts.madd };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: node scripts/wasm-relaxed.mjs IN.wasm OUT.wasm');
    process.exit(2);
  }
  const bytes = new Uint8Array(readFileSync(input));
  const { functions, rewritten } = rewriteRelaxed(bytes);
  if (rewritten === 0) {
    console.error(`wasm-relaxed: ${input} holds no f32x4.fma: was it compiled with -mrelaxed-simd and ATTNSCOPE_RELAXED_SIMD?`);
    process.exit(1);
  }
  // The engine's word on the result: node 20 has relaxed SIMD behind a flag, set here for this process.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--experimental-wasm-relaxed-simd');
  if (!WebAssembly.validate(bytes)) {
    let reason = '';
    try { await WebAssembly.compile(bytes); } catch (e) { reason = e.message; }
    console.error(`wasm-relaxed: the rewritten ${input} does not validate: ${reason}`);
    process.exit(1);
  }
  writeFileSync(output, bytes);
  console.log(`wasm-relaxed: ${output}: ${rewritten} f32x4.fma rewritten to f32x4.relaxed_madd in ${functions} functions`);
}

// The route from Python to attnscope (docs/imported-attention.md), proven: its PyTorch snippet runs as written with
// Debian's python3-torch (scripts/bootstrap.sh installs it) and the files it saves load with
// scope.loadAttentions(); files written by real numpy (np.save v1/v2/v3 headers, float16, np.savez
// with its zip64 members) load too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, after, test } from 'node:test';
import { ROOT, loadScope } from './helpers.mjs';

const PYTHON = '/usr/bin/python3';
let scope, dir;
before(async () => {
  scope = await loadScope({ vocabulary: 'small' });
  dir = mkdtempSync(join(tmpdir(), 'attnscope-python-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function python(code, cwd) {
  return execFileSync(PYTHON, ['-c', code], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
function rowsSumToOne(a, nk, tol, label) {
  for (let r = 0; r < a.length / nk; r++) {
    let s = 0;
    for (let j = 0; j < nk; j++) s += a[r * nk + j];
    assert.ok(Math.abs(s - 1) <= tol, `${label}: row ${r} sums to ${s}`);
  }
}

test("the docs' PyTorch snippet runs and its files load: shapes, tokens, rows", () => {
  const section = readFileSync(join(ROOT, 'docs/imported-attention.md'), 'utf8');
  const snippet = section.match(/```python\n([\s\S]*?)```/)[1];
  assert.match(snippet, /need_weights=True, average_attn_weights=False/);
  const cwd = mkdtempSync(join(dir, 'torch-'));
  python(snippet, cwd);
  const att = scope.loadAttentions(new Uint8Array(readFileSync(join(cwd, 'attentions.npy'))),
    { tokens: readFileSync(join(cwd, 'tokens.json'), 'utf8') });
  assert.equal(att.format, 'npy');
  assert.deepEqual([att.layers, att.heads, att.nq, att.nk], [3, 4, 6, 6]);
  assert.deepEqual(att.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.deepEqual(att.warnings, []);
  rowsSumToOne(att.attentions, 6, 1e-5, 'torch attention');
  const R = scope.rollout(att.attentions, { layers: 3, heads: 4, n: 6 });
  rowsSumToOne(R, 6, 1e-5, 'rollout');
});

test('files written by numpy itself: np.save (header v1, v2, v3; float16), np.savez with tokens', () => {
  const cwd = mkdtempSync(join(dir, 'numpy-'));
  python(`
import numpy as np
rng = np.random.default_rng(0)
x = rng.normal(size=(2, 3, 5, 5)) * 2
a = np.exp(x) / np.exp(x).sum(-1, keepdims=True)
a = a.astype(np.float32)
a.tofile("raw.f32")
for v in [(1, 0), (2, 0), (3, 0)]:
    with open(f"v{v[0]}.npy", "wb") as f:
        np.lib.format.write_array(f, a, version=v)
np.save("half.npy", a.astype(np.float16))
np.save("fortran.npy", np.asfortranarray(a))
np.save("double.npy", a.astype(np.float64))
np.savez("both.npz", attentions=a, tokens=np.array(["[CLS]", "caf\u00e9", "\u00fcber", "\u732b", "[SEP]"]))
np.savez_compressed("packed.npz", attentions=a, tokens=np.array(["[CLS]", "caf\u00e9", "\u00fcber", "\u732b", "[SEP]"]))
y = rng.normal(size=(3, 4, 96, 96))
b = (np.exp(y) / np.exp(y).sum(-1, keepdims=True)).astype(np.float32)
b.tofile("big.f32")
np.savez_compressed("big.npz", attentions=b, tokens=np.array([f"t{i}" for i in range(96)]))
`, cwd);
  const rawBytes = readFileSync(join(cwd, 'raw.f32'));  // a Buffer may sit at an offset in a shared pool
  const raw = new Float32Array(rawBytes.buffer.slice(rawBytes.byteOffset, rawBytes.byteOffset + rawBytes.byteLength));
  const tokens = ['a', 'b', 'c', 'd', 'e'];
  const file = (name) => new Uint8Array(readFileSync(join(cwd, name)));
  for (const v of [1, 2, 3]) {
    const att = scope.loadAttentions(file(`v${v}.npy`), { tokens });
    assert.deepEqual([att.layers, att.heads, att.nq, att.nk], [2, 3, 5, 5]);
    assert.deepEqual(att.attentions, raw, `header version ${v}`);
  }
  const half = scope.loadAttentions(file('half.npy'), { tokens });
  for (let i = 0; i < raw.length; i++) assert.ok(Math.abs(half.attentions[i] - raw[i]) <= raw[i] * 2 ** -11 + 2 ** -25, `float16 element ${i}`);
  assert.throws(() => scope.loadAttentions(file('fortran.npy'), { tokens }), /Fortran order.*ascontiguousarray/);
  assert.throws(() => scope.loadAttentions(file('double.npy'), { tokens }), /'<f8' is not supported/);
  const npz = scope.loadAttentions(file('both.npz'));
  assert.deepEqual(npz.tokens, ['[CLS]', 'café', 'über', '猫', '[SEP]']);
  assert.deepEqual(npz.attentions, raw);
  // numpy.savez_compressed: deflated members, inflated by the C++ decoder (several dynamic blocks in big.npz).
  const packed = scope.loadAttentions(file('packed.npz'));
  assert.deepEqual(packed.tokens, ['[CLS]', 'café', 'über', '猫', '[SEP]']);
  assert.deepEqual(packed.attentions, raw);
  const bigBytes = readFileSync(join(cwd, 'big.f32'));
  const big = scope.loadAttentions(file('big.npz'));
  assert.deepEqual([big.layers, big.heads, big.nq, big.nk], [3, 4, 96, 96]);
  assert.deepEqual(big.attentions, new Float32Array(bigBytes.buffer.slice(bigBytes.byteOffset, bigBytes.byteOffset + bigBytes.byteLength)));
  assert.equal(big.tokens[95], 't95');
  const cut = file('big.npz');
  assert.throws(() => scope.loadAttentions(cut.subarray(0, cut.length - 100)), /npz: the zip structure is truncated or corrupt/);
  const damaged = cut.slice();
  damaged[2000] ^= 0x55;   // inside the deflated attentions member
  assert.throws(() => scope.loadAttentions(damaged), (e) => e instanceof RangeError && /npz: member 'attentions\.npy'/.test(e.message));
});

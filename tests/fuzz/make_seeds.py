#!/usr/bin/env python3
"""Writes the committed seed corpora of tests/fuzz (run once; the files are committed).
tokenizer: a flag byte (bit 0 lower-case, bits 1-7 max_tokens) then text.
vocab: a flag byte (odd = recompute the CRC) then a small valid vocabulary file (docs/vocab-format.md).
scores: byte strings read by fuzz_input.hpp's cursor (score index first)."""
import os, struct, zlib

here = os.path.dirname(os.path.abspath(__file__))

def put(kind, name, data):
    d = os.path.join(here, 'corpus', kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)

texts = ["The cat sat on the mat.", "Don't stop: it's 10:30, U.S. time... 3.14 & 1,000 -- ok!",
         "Café naïve 日本語 👩‍👩‍👧 🇫🇷 1️⃣ €5 x²", "e-mail me@ex.org or see https://ex.org/a?b=c",
         "well-known o'clock mp3 1990s 50% ‐ ’s"]
for i, t in enumerate(texts):
    put('tokenizer', f'text{i}', bytes([1 | (64 << 1)]) + t.encode())
put('tokenizer', 'max3', bytes([1 | (3 << 1)]) + b"one two three four")

def vocab(words, dim, scales, codes, median=5.0):
    words_b = b''.join(bytes([len(w.encode())]) + w.encode() for w in words)
    n = len(words)
    scales_at = (96 + len(words_b) + 3) // 4 * 4
    vectors_at = scales_at + 4 * n
    size = vectors_at + n * dim
    b = bytearray(size)
    b[0:8] = b'ATSVOCAB'
    struct.pack_into('<IIIII', b, 8, 1, 96, dim, n, 1)
    struct.pack_into('<QQQQQQQ', b, 32 - 4 + 4, 96, len(words_b), scales_at, 4 * n, vectors_at, n * dim, size)
    struct.pack_into('<f', b, 88, median)
    b[96:96 + len(words_b)] = words_b
    for i, s in enumerate(scales):
        struct.pack_into('<f', b, scales_at + 4 * i, s)
    b[vectors_at:vectors_at + n * dim] = bytes((c & 0xff) for c in codes)
    crc = zlib.crc32(bytes(b[0:92]) + bytes(b[96:]))
    struct.pack_into('<I', b, 92, crc)
    return bytes(b)

tiny = vocab(["the", "cat", "kitten", "naïve", "日本", "x"], 4, [0.5, 0.25, 0.125, 1.0, 0.0, 0.03125],
             [127, 0, 0, 0, 0, 127, -127, 0, 0, 120, -120, 10, -1, 2, -3, 4, 0, 0, 0, 0, 127, 127, 127, 127])
put('vocab', 'tiny-crc-ok', b'\x00' + tiny)
put('vocab', 'tiny-fixcrc', b'\x01' + tiny)
put('vocab', 'dim1', b'\x01' + vocab(["a", "b"], 1, [1.0, 2.0], [1, -1], 1.5))

import random
rng = random.Random(15)
for score in range(9):
    put('scores', f'score{score}', bytes([score, 1, 3, 4, 5, 6, 7]) + bytes(rng.randrange(256) for _ in range(300)))
# the cancelling case: small integers scaled by 2^0 plus an offset of 2^10
put('scores', 'offset', bytes([6, 1, 3, 4, 8, 3, 1, 150, 1, 10]) + bytes(rng.randrange(256) for _ in range(300)))

# imported: a format byte (0 npy, 1 npz, 2 safetensors; +4 = softmax option) then a small valid file.
def npy_bytes(header, data):
    h = header
    while (10 + len(h) + 1) % 64:
        h += ' '
    h += '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + data

def zip_stored(members):
    out, cd = b'', b''
    for name, data in members:
        n = name.encode()
        crc = zlib.crc32(data)
        cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0, crc, len(data), len(data), len(n), 0, 0, 0, 0, 0, len(out)) + n
        out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0, crc, len(data), len(data), len(n), 0) + n + data
    return out + cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(members), len(members), len(cd), len(out), 0)

rows = [0.25, 0.75, 0.5, 0.5]
att = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2, 2), }", struct.pack('<4f', *rows))
toks = npy_bytes("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
                 b''.join(struct.pack('<3I', *[ord(c) for c in t.ljust(3, '\0')]) for t in ['the', 'cat']))
put('imported', 'npy', b'\x00' + att)
put('imported', 'npy-f2', b'\x00' + npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", struct.pack('<4e', *rows)))
put('imported', 'npz-tokens', b'\x01' + zip_stored([('attentions.npy', att), ('tokens.npy', toks)]))
hdr = '{"__metadata__":{"tokens":"[\\"the\\",\\"cat\\"]"},"attentions":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}'
hdr += ' ' * (-len(hdr) % 8)
put('imported', 'safetensors', b'\x02' + struct.pack('<Q', len(hdr)) + hdr.encode() + struct.pack('<4f', *rows))
put('imported', 'safetensors-softmax', b'\x06' + struct.pack('<Q', len(hdr)) + hdr.encode() + struct.pack('<4f', 1.0, -2.0, 3.0, 0.0))

# trainer: bytes read by fuzz_input.hpp's cursor (options first, then sentences and vectors).
for i in range(6):
    put('trainer', f'run{i}', bytes([i % 8, 8, 6, i % 3, 4, 6, i, 3, 3, i % 3, 7, 0, 20, 0, 10, 0]) + bytes(rng.randrange(256) for _ in range(400)))

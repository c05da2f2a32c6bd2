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

// A seeded generator of numbers in [0, 1): mulberry32 (32-bit state, every step in exact integer
// arithmetic with Math.imul, period 2^32), so the same seed gives the same numbers in every engine.
// Used for data and test inputs only (the lab's points and prototypes, the transformer page's tasks, the
// scaling panel's vectors, the tests' rng(), bench/attention-node.mjs's inputs); no attention math.
// seed: an integer, taken modulo 2^32. Here in lab/ so that the lab can use it too; the pages import it
// through web/shared/random.js.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

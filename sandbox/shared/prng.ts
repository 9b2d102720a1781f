/** A seeded pseudo-random stream: same seed, same sequence, on every machine. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
}

/** mulberry32: 32-bit state, fast, good enough for fault injection (not for secrets). */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = Math.imul(state ^ (state >>> 15), state | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    },
  };
}

/** FNV-1a over the text, mixed with the seed: independent sub-streams per label ("request:payments.cancel"). */
export function deriveSeed(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < label.length; index++) {
    hash = Math.imul(hash ^ label.charCodeAt(index), 0x01000193) >>> 0;
  }
  return hash;
}

/** A seed from a CLI value: an integer as is, any other text hashed. */
export function seedFrom(value: string | number): number {
  if (typeof value === "number") return value >>> 0;
  return /^\d+$/.test(value) ? Number(value) >>> 0 : deriveSeed(0, value);
}

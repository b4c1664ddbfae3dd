/**
 * MurmurHash3_x86_32 over the UTF-8 encoding of a JavaScript string, seed 0,
 * returning an unsigned 32-bit integer (0 … 4294967295).
 *
 * This is the bucketing hot path (docs/bucketing.md), so the string is never
 * materialised as bytes: UTF-16 code units are encoded to UTF-8 on the fly and
 * fed straight into the 4-byte block mixer. No allocation, no dependencies.
 *
 * UTF-8 encoding rules (identical to `new TextEncoder().encode(s)`, i.e. the
 * WHATWG "UTF-8 encode" of a USVString):
 * - U+0000 … U+007F → 1 byte, U+0080 … U+07FF → 2 bytes, other BMP → 3 bytes;
 * - a high surrogate (D800–DBFF) immediately followed by a low surrogate
 *   (DC00–DFFF) is one astral code point → 4 bytes;
 * - a LONE surrogate (a high one not followed by a low one, or a low one not
 *   preceded by a high one) is encoded as U+FFFD REPLACEMENT CHARACTER, the
 *   bytes EF BF BD. This is what TextEncoder and Node's `Buffer.from(s, 'utf8')`
 *   do. Lone surrogates can reach us (JSON allows "\ud800" escapes); SDKs in
 *   other languages must substitute U+FFFD the same way (Python's
 *   `encode('utf-8', 'replace')` gives "?" instead, and strict encoders throw).
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/**
 * Continues a MurmurHash3_x86_32 computation over the UTF-8 bytes of `s`.
 *
 * State: `h` the running hash (after all complete 4-byte blocks seen so far),
 * `k` the pending partial block (little-endian, `sh` bits filled: 0, 8, 16 or
 * 24) and `len` the number of bytes consumed so far.
 *
 * This function is the ASCII fast path, kept small so the JIT inlines it into
 * the evaluator. It optimistically treats every code unit as one byte, four at
 * a time, and ORs them together; only at the end does it check that all were
 * ASCII (below 0x80). If one was not, the optimistic result is discarded and
 * {@link hashGeneral} hashes the string properly from the same initial state
 * (so non-ASCII strings pay for two passes; ASCII ids are the common case).
 */
function hashContinue(h0: number, k0: number, sh0: number, len: number, s: string): number {
  const n = s.length;
  let h = h0;
  let k = k0;
  let sh = sh0;
  let seen = 0;
  let i = 0;
  // Four one-byte characters plus the pending bytes (`sh` bits of `k`)
  // complete one block; what overflows becomes the new pending bytes. This
  // works at any alignment (`w >>> 32` would be `w`, hence the sh === 0 case).
  for (; i + 3 < n; i += 4) {
    const c0 = s.charCodeAt(i);
    const c1 = s.charCodeAt(i + 1);
    const c2 = s.charCodeAt(i + 2);
    const c3 = s.charCodeAt(i + 3);
    seen |= c0 | c1 | c2 | c3;
    const w = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
    let b = k | (w << sh);
    k = sh === 0 ? 0 : w >>> (32 - sh);
    b = Math.imul(b, C1);
    b = (b << 15) | (b >>> 17);
    b = Math.imul(b, C2);
    h ^= b;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    seen |= c;
    k |= c << sh;
    sh += 8;
    if (sh === 32) {
      k = Math.imul(k, C1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, C2);
      h ^= k;
      h = (h << 13) | (h >>> 19);
      h = (Math.imul(h, 5) + 0xe6546b64) | 0;
      k = 0;
      sh = 0;
    }
  }
  if (seen >= 0x80) return hashGeneral(h0, k0, sh0, len, s, 0);
  return finish(h, k, sh, len + n);
}

/** Tail block and finalisation (fmix32); returns the unsigned hash. */
function finish(h: number, k: number, sh: number, len: number): number {
  if (sh !== 0) {
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The full UTF-16 → UTF-8 path, from code unit `i` of `s` to the end, then finalisation. */
function hashGeneral(h: number, k: number, sh: number, len: number, s: string, i: number): number {
  const n = s.length;
  while (i < n) {
    let c = s.charCodeAt(i);
    // Encode one code point into up to 4 bytes, packed little-endian into
    // `bytes`, then push them one at a time.
    let bytes: number;
    let count: number;
    if (c < 0x80) {
      bytes = c;
      count = 1;
    } else if (c < 0x800) {
      bytes = (0xc0 | (c >>> 6)) | ((0x80 | (c & 0x3f)) << 8);
      count = 2;
    } else if (c < 0xd800 || c > 0xdfff) {
      bytes = (0xe0 | (c >>> 12)) | ((0x80 | ((c >>> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16);
      count = 3;
    } else {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        // Surrogate pair → astral code point → 4 bytes.
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        bytes =
          (0xf0 | (c >>> 18)) |
          ((0x80 | ((c >>> 12) & 0x3f)) << 8) |
          ((0x80 | ((c >>> 6) & 0x3f)) << 16) |
          ((0x80 | (c & 0x3f)) << 24);
        count = 4;
        i++;
      } else {
        // Lone surrogate → U+FFFD (EF BF BD), as TextEncoder does.
        bytes = 0xef | (0xbf << 8) | (0xbd << 16);
        count = 3;
      }
    }
    i++;
    len += count;
    for (let j = 0; j < count; j++) {
      k |= (bytes & 0xff) << sh;
      bytes >>>= 8;
      sh += 8;
      if (sh === 32) {
        k = Math.imul(k, C1);
        k = (k << 15) | (k >>> 17);
        k = Math.imul(k, C2);
        h ^= k;
        h = (h << 13) | (h >>> 19);
        h = (Math.imul(h, 5) + 0xe6546b64) | 0;
        k = 0;
        sh = 0;
      }
    }
  }
  return finish(h, k, sh, len);
}

/** MurmurHash3_x86_32 of the UTF-8 bytes of `input`, seed 0, unsigned. */
export function murmur3(input: string): number {
  return hashContinue(0, 0, 0, 0, input);
}

/**
 * The hash state after a fixed prefix, so that many strings sharing that
 * prefix (e.g. `seed + ':'`) are hashed without concatenating or re-hashing it.
 * Opaque; create with {@link murmur3Prefix}.
 */
export interface Murmur3Prefix {
  readonly text: string;
  /** @internal running hash after the prefix's complete blocks */
  readonly h: number;
  /** @internal pending partial block */
  readonly k: number;
  /** @internal bits filled in `k` (0, 8, 16, 24) */
  readonly sh: number;
  /** @internal UTF-8 byte length of the prefix */
  readonly len: number;
  /**
   * @internal true when the prefix ends in a high surrogate: it might pair
   * with a low surrogate at the start of the suffix, so such prefixes fall back
   * to hashing the concatenation.
   */
  readonly openSurrogate: boolean;
}

/** Precomputes the hash state after `prefix` (see {@link murmur3WithPrefix}). */
export function murmur3Prefix(prefix: string): Murmur3Prefix {
  // Absorb the prefix's UTF-8 bytes into the block state and stop before the
  // tail and finalisation steps, which belong to the full string.
  let h = 0;
  let k = 0;
  let sh = 0;
  let len = 0;
  const last = prefix.length > 0 ? prefix.charCodeAt(prefix.length - 1) : 0;
  const openSurrogate = last >= 0xd800 && last <= 0xdbff;
  const bytes = encodeUtf8(prefix);
  for (const b of bytes) {
    k |= b << sh;
    sh += 8;
    len++;
    if (sh === 32) {
      k = Math.imul(k, C1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, C2);
      h ^= k;
      h = (h << 13) | (h >>> 19);
      h = (Math.imul(h, 5) + 0xe6546b64) | 0;
      k = 0;
      sh = 0;
    }
  }
  return { text: prefix, h, k, sh, len, openSurrogate };
}

/** `murmur3(prefix.text + suffix)`, without hashing the prefix again or concatenating. */
export function murmur3WithPrefix(prefix: Murmur3Prefix, suffix: string): number {
  if (prefix.openSurrogate) return hashContinue(0, 0, 0, 0, prefix.text + suffix);
  return hashContinue(prefix.h, prefix.k, prefix.sh, prefix.len, suffix);
}

/**
 * Low-level form of {@link murmur3WithPrefix} for callers that keep the
 * prefix state in their own fields (the compiled evaluator does, to save the
 * indirection on the hot path). The caller must ensure the prefix's
 * `openSurrogate` is false; for `seed + ':'` it always is.
 */
export function murmur3Continue(h: number, k: number, sh: number, len: number, suffix: string): number {
  return hashContinue(h, k, sh, len, suffix);
}

/** UTF-8 bytes with the same lone-surrogate rule; only used off the hot path. */
function encodeUtf8(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out.push(c);
    } else if (c < 0x800) {
      out.push(0xc0 | (c >>> 6), 0x80 | (c & 0x3f));
    } else if (c < 0xd800 || c > 0xdfff) {
      out.push(0xe0 | (c >>> 12), 0x80 | ((c >>> 6) & 0x3f), 0x80 | (c & 0x3f));
    } else {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        out.push(0xf0 | (c >>> 18), 0x80 | ((c >>> 12) & 0x3f), 0x80 | ((c >>> 6) & 0x3f), 0x80 | (c & 0x3f));
        i++;
      } else {
        out.push(0xef, 0xbf, 0xbd);
      }
    }
  }
  return out;
}

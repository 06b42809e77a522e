//! The trigrams of one file's text (ASCII-lowercased) in a one-hash Bloom filter of a power of
//! two bits, 4 to 8 per distinct trigram: half a byte to a byte per distinct trigram, so never
//! more than the file's size. A trigram the file holds always tests present; one it lacks tests
//! present with a probability of at most about 22 % in text whose trigrams repeat (source
//! code), and at most about 40 % in text of almost as many distinct trigrams as bytes (the
//! scratch filter's two bits per byte bound the size), so a required string of k distinct
//! trigrams lets a file that lacks it through with about 0.22^k (0.4^k) or less.
//!
//! Built in one pass over the text into a scratch filter of two bits per byte (in cache for
//! most files), then folded in halves (OR) down to the size the number of bits set calls for:
//! with a power-of-two size and the hash's low bits as the position, the folded filter is the
//! one the trigrams would have made directly.

use std::cell::RefCell;

/// Bits per distinct trigram, at least (the size is rounded up to a power of two).
const BITS_PER_TRIGRAM: usize = 4;
/// Largest scratch filter: 2^24 bits (2 MiB), as many as there are trigrams.
const MAX_SCRATCH_BITS: usize = 1 << 24;

/// One file's trigram filter.
#[derive(Debug, Clone)]
pub(crate) struct Grams {
    words: Box<[u64]>,
}

thread_local! {
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A trigram as the filter sees it: three lowercased bytes.
fn trigram(a: u8, b: u8, c: u8) -> u32 {
    (u32::from(a.to_ascii_lowercase()) << 16)
        | (u32::from(b.to_ascii_lowercase()) << 8)
        | u32::from(c.to_ascii_lowercase())
}

/// The bit of `trigram` in a filter of `bits` bits, a power of two: the low bits of a mixing
/// hash (so a filter folded in halves keeps every trigram's bit).
fn bit_of(trigram: u32, bits: usize) -> usize {
    // one multiply: the build hashes every byte of the text indexed
    let h = trigram.wrapping_mul(0x9E37_79B1);
    (h ^ (h >> 15)) as usize & (bits - 1)
}

impl Grams {
    /// The filter of `text`.
    pub(crate) fn of(text: &[u8]) -> Grams {
        SCRATCH.with(|scratch| {
            let mut words = scratch.borrow_mut();
            let bits = text
                .len()
                .saturating_mul(2)
                .next_power_of_two()
                .clamp(64, MAX_SCRATCH_BITS);
            words.clear();
            words.resize(bits / 64, 0);
            let mut t = 0u32;
            for (i, &b) in text.iter().enumerate() {
                t = ((t << 8) | u32::from(b.to_ascii_lowercase())) & 0xFF_FFFF;
                if i >= 2 {
                    let bit = bit_of(t, bits);
                    words[bit / 64] |= 1 << (bit % 64);
                }
            }
            let set: usize = words.iter().map(|w| w.count_ones() as usize).sum();
            let target = (set * BITS_PER_TRIGRAM).next_power_of_two().clamp(64, bits);
            let mut len = words.len();
            while len * 64 > target {
                let half = len / 2;
                for j in 0..half {
                    words[j] |= words[j + half];
                }
                len = half;
            }
            Grams {
                words: words[..len].into(),
            }
        })
    }

    fn has(&self, t: u32) -> bool {
        let b = bit_of(t, self.words.len() * 64);
        self.words[b / 64] & (1 << (b % 64)) != 0
    }

    /// False only when the text cannot contain `s`: one of its trigrams is missing.
    pub(crate) fn may_contain(&self, s: &[u8]) -> bool {
        s.windows(3).all(|w| self.has(trigram(w[0], w[1], w[2])))
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts from a few bytes to a few MiB, so the scratch filter is folded many times: every
    /// trigram of the text tests present, and the filter stays within a byte per distinct
    /// trigram (at least 8 bytes).
    #[test]
    fn every_trigram_of_a_text_tests_present_after_folding() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for len in [3usize, 10, 100, 1_000, 30_000, 200_000, 3 << 20] {
            let text: Vec<u8> = (0..len)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Mostly a small alphabet (many repeats, so folding happens), some noise.
                    if i % 7 == 0 {
                        (state >> 24) as u8
                    } else {
                        b"abcdefgh XYZ"[(state % 12) as usize]
                    }
                })
                .collect();
            let grams = Grams::of(&text);
            let mut distinct = std::collections::HashSet::new();
            for w in text.windows(3) {
                let t = trigram(w[0], w[1], w[2]);
                distinct.insert(t);
                assert!(grams.has(t), "len {len}: trigram {t:06x} missing");
            }
            // a trigram the text lacks tests present rarely (the module's bound)
            let absent: Vec<u32> = (0..20_000u32)
                .map(|i| i.wrapping_mul(2_654_435_761) & 0xFF_FFFF)
                .filter(|t| !distinct.contains(t))
                .collect();
            let present = absent.iter().filter(|&&t| grams.has(t)).count();
            assert!(
                present * 100 <= absent.len() * 40,
                "len {len}: {present} of {} absent trigrams test present",
                absent.len()
            );
            assert!(
                grams.bytes() <= (distinct.len()).max(8),
                "len {len}: {} bytes for {} trigrams",
                grams.bytes(),
                distinct.len()
            );
        }
    }
}

//! The trigrams of one file's text (ASCII-lowercased) in a one-hash Bloom filter of about four
//! bits per distinct trigram: half a byte per distinct trigram, so never more than half the
//! file's size. A trigram the file holds always tests present; one it lacks tests present with
//! a probability of about 22 %, so a required string of k distinct trigrams lets a file that
//! lacks it through with about 0.22^k.

use std::cell::RefCell;

use crate::query::Required;

/// Bits per distinct trigram.
const BITS_PER_TRIGRAM: usize = 4;

/// One file's trigram filter.
#[derive(Debug, Clone)]
pub(crate) struct Grams {
    words: Box<[u64]>,
}

/// The 2^24 possible trigrams as a bitmap, to list a text's distinct ones in one pass.
struct Scratch {
    seen: Vec<u64>,
    distinct: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch { seen: vec![0; (1 << 24) / 64], distinct: Vec::new() });
}

fn trigram(a: u8, b: u8, c: u8) -> u32 {
    (u32::from(a.to_ascii_lowercase()) << 16)
        | (u32::from(b.to_ascii_lowercase()) << 8)
        | u32::from(c.to_ascii_lowercase())
}

/// The bit of `trigram` in a filter of `bits` bits (a multiplicative hash, then range reduction).
fn bit_of(trigram: u32, bits: usize) -> usize {
    let mut h = trigram.wrapping_mul(0x9E37_79B1);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    ((u64::from(h) * bits as u64) >> 32) as usize
}

impl Grams {
    /// The filter of `text`.
    pub(crate) fn of(text: &[u8]) -> Grams {
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { seen, distinct } = &mut *scratch;
            distinct.clear();
            for w in text.windows(3) {
                let t = trigram(w[0], w[1], w[2]);
                let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
                if seen[word] & bit == 0 {
                    seen[word] |= bit;
                    distinct.push(t);
                }
            }
            let bits = (distinct.len() * BITS_PER_TRIGRAM).div_ceil(64).max(1) * 64;
            let mut words = vec![0u64; bits / 64].into_boxed_slice();
            for &t in distinct.iter() {
                seen[(t >> 6) as usize] = 0;
                let b = bit_of(t, bits);
                words[b / 64] |= 1 << (b % 64);
            }
            Grams { words }
        })
    }

    fn has(&self, t: u32) -> bool {
        let b = bit_of(t, self.words.len() * 64);
        self.words[b / 64] & (1 << (b % 64)) != 0
    }

    /// False only when the text cannot meet `required` (see the module docs).
    pub(crate) fn may_meet(&self, required: &Required) -> bool {
        required.clauses().iter().all(|clause| {
            clause
                .iter()
                .any(|s| s.windows(3).all(|w| self.has(trigram(w[0], w[1], w[2]))))
        })
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

//! Which parts of a document a query can observe: a trie over object keys
//! and array elements, built by [`crate::demand`] and followed by
//! [`crate::projected`] when it reads the file.
//!
//! Parts that no node reaches are never looked at by the query, so the
//! reader skips them instead of building values for them. That is what keeps
//! `.items | length` on a 100 MB file from building the whole value tree.

use std::collections::BTreeMap;

/// How much of one value the query observes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// Only what the child nodes ask for (scalars are always kept whole,
    /// containers keep their kind).
    #[default]
    Reached,
    /// Its kind and size: every array element and object key is kept, with
    /// `null` in place of values no child node asks for (`length`, `keys`,
    /// truthiness).
    Shallow,
    /// Everything below it.
    Full,
}

/// One step from a value to a part of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Step {
    /// The value of one object key.
    Key(Vec<u8>),
    /// Any part: every array element and every object value.
    Each,
}

/// A node of the trie: what the query observes of one value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Need {
    pub(crate) level: Level,
    /// Object keys the query reads by name.
    pub(crate) keys: BTreeMap<Vec<u8>, Need>,
    /// What it observes of every element or value (`.[]`, `.[0]`, `map`).
    pub(crate) each: Option<Box<Need>>,
}

impl Need {
    /// Make the value at `path` observable at (at least) `level`.
    pub(crate) fn mark(&mut self, path: &[Step], level: Level) {
        let mut node = self;
        for step in path {
            if node.level == Level::Full {
                return;
            }
            node = match step {
                Step::Key(k) => node.keys.entry(k.clone()).or_default(),
                Step::Each => node.each.get_or_insert_with(Box::default),
            };
        }
        node.level = node.level.max(level);
    }

    /// Whether the query observes the whole value (nothing to skip).
    pub(crate) fn is_full(&self) -> bool {
        self.level == Level::Full
    }

    /// Union of two nodes.
    pub(crate) fn merge(&mut self, other: &Need) {
        self.level = self.level.max(other.level);
        for (k, n) in &other.keys {
            self.keys.entry(k.clone()).or_default().merge(n);
        }
        if let Some(e) = &other.each {
            self.each.get_or_insert_with(Box::default).merge(e);
        }
    }

    /// Prepare for reading: drop what `Full` makes pointless and fold the
    /// `each` node into every named key, so that the reader finds the node of
    /// a key with one lookup (`keys[k]`, else `each`).
    pub(crate) fn normalize(&mut self) {
        if self.level == Level::Full {
            self.keys.clear();
            self.each = None;
            return;
        }
        if let Some(each) = &mut self.each {
            each.normalize();
            for node in self.keys.values_mut() {
                node.merge(each);
            }
        }
        for node in self.keys.values_mut() {
            node.normalize();
        }
    }

    /// The node for the value of object key `key`.
    pub(crate) fn key(&self, key: &[u8]) -> Option<&Need> {
        self.keys.get(key).or(self.each.as_deref())
    }

    /// Whether object values that no node asks for keep their key (with a
    /// `null` value): the object's size or key set is observed.
    pub(crate) fn keeps_all_keys(&self) -> bool {
        self.level >= Level::Shallow || self.each.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Step {
        Step::Key(k.as_bytes().to_vec())
    }

    #[test]
    fn full_swallows_children() {
        let mut n = Need::default();
        n.mark(&[key("a"), key("b")], Level::Shallow);
        n.mark(&[key("a")], Level::Full);
        n.mark(&[key("a"), key("c")], Level::Shallow);
        n.normalize();
        let a = &n.keys[b"a".as_slice()];
        assert!(a.is_full());
        assert!(a.keys.is_empty());
    }

    #[test]
    fn each_folds_into_named_keys() {
        let mut n = Need::default();
        n.mark(&[Step::Each, key("x")], Level::Full);
        n.mark(&[key("a"), key("y")], Level::Full);
        n.normalize();
        let a = n.key(b"a").map(|a| {
            let mut ks: Vec<_> = a.keys.keys().cloned().collect();
            ks.sort();
            ks
        });
        assert_eq!(a, Some(vec![b"x".to_vec(), b"y".to_vec()]));
        // any other key gets the `each` node
        assert_eq!(n.key(b"zzz").map(|z| z.keys.len()), Some(1));
        assert!(n.keeps_all_keys());
    }

    #[test]
    fn reached_keeps_only_named_keys() {
        let mut n = Need::default();
        n.mark(&[key("a")], Level::Full);
        n.normalize();
        assert!(!n.keeps_all_keys());
        assert!(n.key(b"b").is_none());
    }
}

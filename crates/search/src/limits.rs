//! Bounds on what one client regex may cost to compile, shared by every search that builds one.

/// Compiled regex size limit (the `regex` crate's default; grep-regex's own is 100 MiB): a
/// pattern such as `a{1000}{1000}` is refused up front instead of costing a gigabyte.
pub(crate) const REGEX_SIZE_LIMIT: usize = 10 << 20;
/// Lazy DFA cache per search thread (grep-regex's default is 1,000 MiB).
pub(crate) const DFA_SIZE_LIMIT: usize = 16 << 20;

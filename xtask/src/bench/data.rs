//! Deterministic inputs: small text files, a big text file, a big JSON file, and the source tree
//! searched by `grep`/`tree` (the cargo registry sources, or a generated tree in `--quick`).
//!
//! Generated files are written to a temporary name, renamed into place, and then stamped
//! (`NAME.stamp` holds the generator parameters), so later runs reuse them and an interrupted
//! generation is never mistaken for a finished one.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Bumped whenever a generator's output changes.
const GENERATOR_VERSION: u32 = 1;

/// Every generated line of the big file is this long, newline included.
pub const BIG_LINE_BYTES: u64 = 100;

/// How big the generated inputs are.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub small_files: usize,
    pub small_file_lines: usize,
    pub big_lines: u64,
    pub json_target_bytes: u64,
}

impl Sizes {
    pub fn new(quick: bool) -> Sizes {
        if quick {
            Sizes {
                small_files: 100,
                small_file_lines: 40,
                big_lines: 20_000,
                json_target_bytes: 256 * 1024,
            }
        } else {
            Sizes {
                small_files: 100,
                small_file_lines: 40,
                // 1 GiB of 100-byte lines.
                big_lines: (1u64 << 30) / BIG_LINE_BYTES,
                json_target_bytes: 100 * 1024 * 1024,
            }
        }
    }
}

/// The files of the read and query workloads, all under `dir`.
#[derive(Debug, Clone)]
pub struct Data {
    pub dir: PathBuf,
    pub small_files: Vec<PathBuf>,
    pub big_file: PathBuf,
    pub big_lines: u64,
    pub json_file: PathBuf,
    pub json_bytes: u64,
    pub json_items: u64,
}

/// The directory tree of the grep and tree workloads.
#[derive(Debug, Clone)]
pub struct Tree {
    pub root: PathBuf,
    /// What it is, for the report.
    pub label: String,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// A sub-directory small enough for every server to list it completely.
    pub subtree: PathBuf,
    pub subtree_entries: u64,
    pub rare_pattern: String,
    pub common_pattern: String,
    pub find_pattern: String,
}

/// The content of line `n` (1-based) of the big file starts with this.
pub fn big_line_marker(n: u64) -> String {
    format!("{n:010} ")
}

/// Generates (or reuses) the read/query inputs under `dir`.
pub fn prepare(dir: &Path, sizes: Sizes) -> anyhow::Result<Data> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;

    let small_dir = dir.join("small");
    let small_stamp = format!(
        "v{GENERATOR_VERSION} small {} x {} lines",
        sizes.small_files, sizes.small_file_lines
    );
    let small_files: Vec<PathBuf> = (0..sizes.small_files)
        .map(|i| small_dir.join(format!("file_{i:03}.txt")))
        .collect();
    if !stamped(&small_dir.join(".stamp"), &small_stamp) {
        std::fs::create_dir_all(&small_dir)
            .with_context(|| format!("cannot create {}", small_dir.display()))?;
        for (i, path) in small_files.iter().enumerate() {
            let mut text = String::new();
            for line in 1..=sizes.small_file_lines {
                text.push_str(&format!(
                    "file {i:03} line {line:03}: the quick brown fox jumps over the lazy dog\n"
                ));
            }
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        write_stamp(&small_dir.join(".stamp"), &small_stamp)?;
    }

    let big_file = dir.join(format!("big-{}-lines.txt", sizes.big_lines));
    generate(
        &big_file,
        &format!("v{GENERATOR_VERSION} lines {}", sizes.big_lines),
        |out| write_big_text(out, sizes.big_lines),
    )?;

    let json_file = dir.join(format!("data-{}.json", sizes.json_target_bytes));
    generate(
        &json_file,
        &format!("v{GENERATOR_VERSION} json {}", sizes.json_target_bytes),
        |out| write_json(out, sizes.json_target_bytes).map(|_| ()),
    )?;
    let json_bytes = std::fs::metadata(&json_file)
        .with_context(|| format!("cannot stat {}", json_file.display()))?
        .len();
    Ok(Data {
        json_items: json_item_count(sizes.json_target_bytes),
        dir,
        small_files,
        big_file,
        big_lines: sizes.big_lines,
        json_file,
        json_bytes,
    })
}

fn stamped(stamp: &Path, expected: &str) -> bool {
    std::fs::read_to_string(stamp).is_ok_and(|s| s == expected)
}

fn write_stamp(stamp: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(stamp, text).with_context(|| format!("cannot write {}", stamp.display()))
}

fn stamp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".stamp");
    path.with_file_name(name)
}

/// Writes `path` with `write` unless it exists with the same stamp.
fn generate(
    path: &Path,
    stamp: &str,
    write: impl FnOnce(&mut BufWriter<File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let stamp_file = stamp_path(path);
    if path.is_file() && stamped(&stamp_file, stamp) {
        return Ok(());
    }
    eprintln!("bench: generating {}", path.display());
    let tmp = path.with_extension("partial");
    let file = File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write(&mut out).with_context(|| format!("cannot write {}", tmp.display()))?;
    out.into_inner()
        .map_err(|e| e.into_error())
        .and_then(|f| f.sync_all())
        .with_context(|| format!("cannot flush {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    write_stamp(&stamp_file, stamp)
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "minim",
    "veniam",
    "quis",
    "nostrud",
];

/// `lines` lines of exactly [`BIG_LINE_BYTES`] bytes: a 10-digit line number, a space, words.
fn write_big_text(out: &mut impl Write, lines: u64) -> anyhow::Result<()> {
    // A pool of word text; each line takes a window of it at a pseudo-random offset.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut pool = Vec::with_capacity(8192);
    while pool.len() < 8192 {
        pool.extend_from_slice(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
        pool.push(b' ');
    }
    let filler = (BIG_LINE_BYTES - 12) as usize; // 10 digits, a space, the newline
    let mut line = [b'0'; BIG_LINE_BYTES as usize];
    line[10] = b' ';
    line[BIG_LINE_BYTES as usize - 1] = b'\n';
    for _ in 0..lines {
        // Increment the decimal line number in place.
        for digit in line[..10].iter_mut().rev() {
            if *digit == b'9' {
                *digit = b'0';
            } else {
                *digit += 1;
                break;
            }
        }
        let start = rng.below((pool.len() - filler) as u64) as usize;
        line[11..11 + filler].copy_from_slice(&pool[start..start + filler]);
        out.write_all(&line)?;
    }
    Ok(())
}

/// Items written for a JSON target size (each item is about 200 bytes).
fn json_item_count(target_bytes: u64) -> u64 {
    (target_bytes / 200).max(10)
}

const GROUPS: u64 = 20;
const REGIONS: &[&str] = &["eu-west", "eu-north", "us-east", "us-west", "ap-south"];
const TAGS: &[&str] = &["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];

/// `{"meta": {...}, "items": [{id, name, active, score, group, tags, owner, history}, ...]}`.
fn write_json(out: &mut impl Write, target_bytes: u64) -> anyhow::Result<u64> {
    let items = json_item_count(target_bytes);
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    writeln!(
        out,
        "{{\"meta\":{{\"generator\":\"fs-mcp-rs bench v{GENERATOR_VERSION}\",\"items\":{items}}},\"items\":["
    )?;
    for id in 0..items {
        let active = rng.below(3) != 0;
        let score = rng.below(1000);
        let group = rng.below(GROUPS);
        let region = REGIONS[rng.below(REGIONS.len() as u64) as usize];
        let owner = rng.below(10_000);
        let tag_a = TAGS[rng.below(TAGS.len() as u64) as usize];
        let tag_b = TAGS[rng.below(TAGS.len() as u64) as usize];
        let (h1, h2, h3) = (rng.below(100), rng.below(100), rng.below(100));
        let sep = if id + 1 == items { "" } else { "," };
        writeln!(
            out,
            "{{\"id\":{id},\"name\":\"item-{id:09}\",\"active\":{active},\"score\":{score},\"group\":\"g{group:02}\",\"tags\":[\"{tag_a}\",\"{tag_b}\"],\"owner\":{{\"name\":\"user-{owner:04}\",\"region\":\"{region}\"}},\"history\":[{h1},{h2},{h3}]}}{sep}"
        )?;
    }
    writeln!(out, "]}}")?;
    Ok(items)
}

/// The three jq expressions of the query workload: (label, expression).
pub fn queries() -> Vec<(&'static str, &'static str)> {
    vec![
        ("count: .items | length", ".items | length"),
        (
            "filter: select(...) | {id,name}",
            ".items[] | select(.active and .score > 997) | {id, name}",
        ),
        (
            "aggregate: group_by + map",
            ".items | map(select(.group == \"g07\")) | group_by(.owner.region) | map({region: .[0].owner.region, n: length, total: (map(.score) | add)})",
        ),
    ]
}

/// The cargo registry sources (`$CARGO_HOME/registry/src`): this project's dependencies.
pub fn registry_tree() -> anyhow::Result<Tree> {
    let home = match std::env::var_os("CARGO_HOME") {
        Some(h) => PathBuf::from(h),
        None => {
            PathBuf::from(std::env::var_os("HOME").context("neither CARGO_HOME nor HOME is set")?)
                .join(".cargo")
        }
    };
    let root = home.join("registry/src");
    let root = root.canonicalize().with_context(|| {
        format!(
            "no cargo registry sources at {} (run `cargo fetch` first)",
            root.display()
        )
    })?;
    let mut tree = describe_tree(
        root,
        "the cargo registry sources ($CARGO_HOME/registry/src)",
    )?;
    if tree.files < 1000 {
        bail!(
            "{} holds only {} files; run `cargo fetch` first",
            tree.root.display(),
            tree.files
        );
    }
    tree.rare_pattern = "RFC 3986".into();
    tree.common_pattern = "pub fn".into();
    tree.find_pattern = "**/build.rs".into();
    Ok(tree)
}

/// A small generated source tree for `--quick`.
pub fn quick_tree(dir: &Path) -> anyhow::Result<Tree> {
    let stamp = format!("v{GENERATOR_VERSION} quick tree");
    if !stamped(&dir.join(".stamp"), &stamp) {
        for d in 0..10 {
            let module = dir.join(format!("crate_{d:02}/src/module"));
            std::fs::create_dir_all(&module)
                .with_context(|| format!("cannot create {}", module.display()))?;
            let krate = dir.join(format!("crate_{d:02}"));
            std::fs::write(krate.join(".gitignore"), "*.log\n")
                .with_context(|| format!("cannot write in {}", krate.display()))?;
            std::fs::write(krate.join("ignored.log"), "pub fn ignored() {}\n")
                .with_context(|| format!("cannot write in {}", krate.display()))?;
            if d % 3 == 0 {
                std::fs::write(krate.join("build.rs"), "fn main() {}\n")
                    .with_context(|| format!("cannot write in {}", krate.display()))?;
            }
            for f in 0..20 {
                let mut text = String::new();
                for i in 0..20 {
                    text.push_str(&format!(
                        "/// Item {i} of file {f}.\npub fn item_{i}() -> u32 {{\n    {i}\n}}\n\n"
                    ));
                }
                if f == 7 && d % 2 == 0 {
                    text.push_str("// Parses URIs as in RFC 3986.\n");
                }
                let target = if f % 2 == 0 {
                    &module
                } else {
                    &krate.join("src")
                };
                std::fs::write(target.join(format!("file_{f:02}.rs")), text)
                    .with_context(|| format!("cannot write in {}", target.display()))?;
            }
        }
        write_stamp(&dir.join(".stamp"), &stamp)?;
    }
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let mut tree = describe_tree(root, "a generated tree of 10 small crates (--quick)")?;
    tree.rare_pattern = "RFC 3986".into();
    tree.common_pattern = "pub fn".into();
    tree.find_pattern = "**/build.rs".into();
    Ok(tree)
}

/// Counts what is under `root` (not following symlinks) and picks the largest immediate
/// sub-directory with at most 1,500 entries for the complete-listing tree case.
fn describe_tree(root: PathBuf, label: &str) -> anyhow::Result<Tree> {
    let (mut files, mut dirs, mut bytes) = (0u64, 0u64, 0u64);
    let mut best: Option<(u64, PathBuf)> = None;
    let top =
        std::fs::read_dir(&root).with_context(|| format!("cannot list {}", root.display()))?;
    let mut top_dirs = Vec::new();
    for entry in top.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            top_dirs.push(entry.path());
        }
    }
    top_dirs.sort();
    // The registry has one level of index directories above the crates.
    let mut candidates = Vec::new();
    for dir in &top_dirs {
        let mut counts = Counts::default();
        count(dir, &mut counts);
        files += counts.files;
        dirs += counts.dirs + 1;
        bytes += counts.bytes;
        candidates.push(dir.clone());
        if let Ok(inner) = std::fs::read_dir(dir) {
            let mut inner: Vec<PathBuf> = inner
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect();
            inner.sort();
            candidates.extend(inner);
        }
    }
    for candidate in candidates {
        let mut counts = Counts::default();
        count(&candidate, &mut counts);
        let entries = counts.files + counts.dirs + counts.other;
        if entries <= 1_500 && best.as_ref().is_none_or(|(n, _)| entries > *n) {
            best = Some((entries, candidate));
        }
    }
    let (subtree_entries, subtree) = best.unwrap_or((0, root.clone()));
    Ok(Tree {
        root,
        label: label.to_string(),
        files,
        dirs,
        bytes,
        subtree,
        subtree_entries,
        rare_pattern: String::new(),
        common_pattern: String::new(),
        find_pattern: String::new(),
    })
}

#[derive(Default)]
struct Counts {
    files: u64,
    dirs: u64,
    other: u64,
    bytes: u64,
}

fn count(dir: &Path, counts: &mut Counts) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            counts.dirs += 1;
            count(&entry.path(), counts);
        } else if kind.is_file() {
            counts.files += 1;
            counts.bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
        } else {
            counts.other += 1;
        }
    }
}

//! Deterministic inputs: small text files, a big text file, a big JSON file, a large YAML file
//! (the same records), and the source tree searched by `grep`/`tree` (the cargo registry sources,
//! or a generated tree in `--quick`).
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
    pub yaml_target_bytes: u64,
}

impl Sizes {
    pub fn new(quick: bool) -> Sizes {
        if quick {
            Sizes {
                small_files: 100,
                small_file_lines: 40,
                big_lines: 20_000,
                json_target_bytes: 256 * 1024,
                yaml_target_bytes: 64 * 1024,
            }
        } else {
            Sizes {
                small_files: 100,
                small_file_lines: 40,
                // 1 GiB of 100-byte lines.
                big_lines: (1u64 << 30) / BIG_LINE_BYTES,
                json_target_bytes: 100_000_000,
                // Smaller than the JSON file: the yq baseline parses YAML far slower than jq
                // parses JSON.
                yaml_target_bytes: 20_000_000,
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
    pub yaml_file: PathBuf,
    pub yaml_bytes: u64,
    pub yaml_items: u64,
}

/// The two query languages of the query workload: jq over JSON, yq over YAML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
}

impl Data {
    /// The file the queries of `format` run on, and its size in bytes.
    pub fn query_file(&self, format: Format) -> (&Path, u64) {
        match format {
            Format::Json => (&self.json_file, self.json_bytes),
            Format::Yaml => (&self.yaml_file, self.yaml_bytes),
        }
    }
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
        &format!("v{JSON_GENERATOR_VERSION} json {}", sizes.json_target_bytes),
        |out| write_json(out, sizes.json_target_bytes).map(|_| ()),
    )?;
    let json_bytes = file_len(&json_file)?;

    let yaml_file = dir.join(format!("data-{}.yaml", sizes.yaml_target_bytes));
    generate(
        &yaml_file,
        &format!("v{YAML_GENERATOR_VERSION} yaml {}", sizes.yaml_target_bytes),
        |out| write_yaml(out, sizes.yaml_target_bytes).map(|_| ()),
    )?;
    let yaml_bytes = file_len(&yaml_file)?;
    Ok(Data {
        json_items: json_item_count(sizes.json_target_bytes),
        yaml_items: yaml_item_count(sizes.yaml_target_bytes),
        dir,
        small_files,
        big_file,
        big_lines: sizes.big_lines,
        json_file,
        json_bytes,
        yaml_file,
        yaml_bytes,
    })
}

fn file_len(path: &Path) -> anyhow::Result<u64> {
    Ok(std::fs::metadata(path)
        .with_context(|| format!("cannot stat {}", path.display()))?
        .len())
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

/// Bumped whenever the JSON generator's output changes (independently of the others, so the
/// big text file is not regenerated for it).
const JSON_GENERATOR_VERSION: u32 = 2;
/// Bumped whenever the YAML generator's output changes.
const YAML_GENERATOR_VERSION: u32 = 1;

const GROUPS: u64 = 20;
const REGIONS: &[&str] = &["eu-west", "eu-north", "us-east", "us-west", "ap-south"];
const TAGS: &[&str] = &["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
/// Both data files draw their items from this seed, so the YAML file holds the first items of
/// the JSON file.
const ITEM_SEED: u64 = 0xD1B5_4A32_D192_ED03;

/// One record of the query inputs. Every value is one that YAML 1.1, YAML 1.2 (fs-mcp-rs) and
/// the yq baseline's PyYAML rules (`010` is octal there) read alike: no `yes`/`no`/`on`/`off`,
/// no leading zeros, no dates.
struct Item {
    id: u64,
    active: bool,
    score: u64,
    group: u64,
    region: &'static str,
    owner: u64,
    tags: [&'static str; 2],
    history: [u64; 3],
}

impl Item {
    /// Item `id`; the order of the draws is part of the generated files.
    fn draw(rng: &mut Rng, id: u64) -> Item {
        let active = rng.below(3) != 0;
        let score = rng.below(1000);
        let group = rng.below(GROUPS);
        let region = REGIONS[rng.below(REGIONS.len() as u64) as usize];
        let owner = rng.below(10_000);
        let tag_a = TAGS[rng.below(TAGS.len() as u64) as usize];
        let tag_b = TAGS[rng.below(TAGS.len() as u64) as usize];
        let history = [rng.below(100), rng.below(100), rng.below(100)];
        Item {
            id,
            active,
            score,
            group,
            region,
            owner,
            tags: [tag_a, tag_b],
            history,
        }
    }
}

/// Writes an item as one line of JSON, followed by a comma unless it is the last.
fn write_json_item(out: &mut impl Write, item: &Item, last: bool) -> std::io::Result<()> {
    let Item {
        id,
        active,
        score,
        group,
        region,
        owner,
        tags: [tag_a, tag_b],
        history: [h1, h2, h3],
    } = item;
    let sep = if last { "" } else { "," };
    writeln!(
        out,
        "{{\"id\":{id},\"name\":\"item-{id:09}\",\"active\":{active},\"score\":{score},\"group\":\"g{group:02}\",\"tags\":[\"{tag_a}\",\"{tag_b}\"],\"owner\":{{\"name\":\"user-{owner:04}\",\"region\":\"{region}\"}},\"history\":[{h1},{h2},{h3}]}}{sep}"
    )
}

/// Writes an item as an entry of the block-style `items:` sequence.
fn write_yaml_item(out: &mut impl Write, item: &Item) -> std::io::Result<()> {
    let Item {
        id,
        active,
        score,
        group,
        region,
        owner,
        tags: [tag_a, tag_b],
        history: [h1, h2, h3],
    } = item;
    write!(
        out,
        "  - id: {id}\n    name: item-{id:09}\n    active: {active}\n    score: {score}\n    group: g{group:02}\n    tags:\n      - {tag_a}\n      - {tag_b}\n    owner:\n      name: user-{owner:04}\n      region: {region}\n    history:\n      - {h1}\n      - {h2}\n      - {h3}\n"
    )
}

/// Items written for a target size: the target divided by the mean size of the first 1,000
/// items as `render` writes them (the same items the generator writes first).
fn item_count(
    target_bytes: u64,
    render: impl Fn(&mut Vec<u8>, &Item) -> std::io::Result<()>,
) -> u64 {
    const SAMPLE: u64 = 1_000;
    let mut rng = Rng(ITEM_SEED);
    let mut sample = Vec::new();
    for id in 0..SAMPLE {
        // Writing to a Vec cannot fail.
        let _ = render(&mut sample, &Item::draw(&mut rng, id));
    }
    let mean = (sample.len() as u64 / SAMPLE).max(1);
    (target_bytes / mean).max(10)
}

fn json_item_count(target_bytes: u64) -> u64 {
    item_count(target_bytes, |out, item| write_json_item(out, item, false))
}

fn yaml_item_count(target_bytes: u64) -> u64 {
    item_count(target_bytes, write_yaml_item)
}

/// `{"meta": {...}, "items": [{id, name, active, score, group, tags, owner, history}, ...]}`.
fn write_json(out: &mut impl Write, target_bytes: u64) -> anyhow::Result<u64> {
    let items = json_item_count(target_bytes);
    let mut rng = Rng(ITEM_SEED);
    writeln!(
        out,
        "{{\"meta\":{{\"generator\":\"fs-mcp-rs bench v{JSON_GENERATOR_VERSION}\",\"items\":{items}}},\"items\":["
    )?;
    for id in 0..items {
        write_json_item(out, &Item::draw(&mut rng, id), id + 1 == items)?;
    }
    writeln!(out, "]}}")?;
    Ok(items)
}

/// The JSON file's shape in block-style YAML: `meta:` then `items:`, a sequence of mappings
/// with nested `tags`, `owner` and `history`, every collection in block style (what
/// hand-written configuration and manifests look like, and the slower style to parse).
fn write_yaml(out: &mut impl Write, target_bytes: u64) -> anyhow::Result<u64> {
    let items = yaml_item_count(target_bytes);
    let mut rng = Rng(ITEM_SEED);
    writeln!(
        out,
        "meta:\n  generator: fs-mcp-rs bench yaml v{YAML_GENERATOR_VERSION}\n  items: {items}\nitems:"
    )?;
    for id in 0..items {
        write_yaml_item(out, &Item::draw(&mut rng, id))?;
    }
    Ok(items)
}

/// The jq expressions of the query workload over the JSON file: (label, expression).
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
        // the shapes of issue #22's table (scores here are integers 0..1000)
        (
            "filter + length: [select(...) | {id,name}] | length",
            "[.items[] | select(.score > 990) | {id, name}] | length",
        ),
        (
            "group: group_by(.group) + map",
            ".items | group_by(.group) | map({group: .[0].group, n: length})",
        ),
        (
            "sort: sort_by(.score)",
            ".items | sort_by(.score) | .[-1] | {id, score}",
        ),
        // the planner answers the one above by keeping only the greatest element, and this one
        // by keeping the 1,003 least (a page of the sort)
        (
            "sort, page: sort_by(.score) | .[1000:1003]",
            ".items | sort_by(.score) | .[1000:1003] | map(.id)",
        ),
        // the same window, spelt with a path after the index (issue #32: it sorted everything)
        (
            "sort, then a path: sort_by(.score) | .[0].id",
            ".items | sort_by(.score) | .[0].id",
        ),
        // this one needs the whole sorted array
        (
            "sort, whole: sort_by(.score) | map(.id)",
            ".items | sort_by(.score) | map(.id) | tojson | length",
        ),
        (
            "unique: [.owner.name] | unique",
            "[.items[] | .owner.name] | unique | length",
        ),
    ]
}

/// The yq expressions of the query workload over the YAML file: (label, expression). Labels
/// start with `YAML` so that they differ from the JSON cases'.
pub fn yaml_queries() -> Vec<(&'static str, &'static str)> {
    vec![
        ("YAML count: .items | length", ".items | length"),
        (
            "YAML filter: select(...) | {id,name,owner}",
            ".items[] | select(.owner.region == \"ap-south\" and .score > 900) | {id, name, owner: .owner.name}",
        ),
        (
            "YAML aggregate: group_by + add",
            ".items | map(select(.active)) | group_by(.group) | map({group: .[0].group, n: length, history: (map(.history | add) | add)})",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_files_are_close_to_their_target_size() {
        for (write, target) in [
            (
                write_json as fn(&mut Vec<u8>, u64) -> anyhow::Result<u64>,
                256 * 1024,
            ),
            (write_yaml, 64 * 1024),
        ] {
            let mut out = Vec::new();
            write(&mut out, target).expect("writing to a Vec");
            let ratio = out.len() as f64 / target as f64;
            assert!(
                (0.95..1.05).contains(&ratio),
                "{} bytes for {target}",
                out.len()
            );
        }
    }

    /// The YAML file holds the JSON file's items, in block style.
    #[test]
    fn yaml_items_are_the_json_items() {
        let (mut json, mut yaml) = (Vec::new(), Vec::new());
        write_json(&mut json, 4096).expect("writing to a Vec");
        write_yaml(&mut yaml, 4096).expect("writing to a Vec");
        let (json, yaml) = (
            String::from_utf8_lossy(&json),
            String::from_utf8_lossy(&yaml),
        );
        let first_json = json.lines().nth(1).unwrap_or_default();
        assert!(first_json.starts_with(
            r#"{"id":0,"name":"item-000000000","active":true,"score":457,"group":"g11","tags":["zeta","gamma"],"owner":{"name":"user-2237","region":"eu-west"},"history":[44,59,84]}"#
        ));
        let first_yaml: Vec<&str> = yaml.lines().skip(4).take(15).collect();
        assert_eq!(
            first_yaml.join("\n"),
            "  - id: 0\n    name: item-000000000\n    active: true\n    score: 457\n    group: g11\n    tags:\n      - zeta\n      - gamma\n    owner:\n      name: user-2237\n      region: eu-west\n    history:\n      - 44\n      - 59\n      - 84"
        );
        assert!(yaml.starts_with("meta:\n  generator: fs-mcp-rs bench yaml v1\n  items: "));
    }

    /// Cases are found by label, so the JSON and YAML labels must differ.
    #[test]
    fn query_labels_are_distinct() {
        let mut labels: Vec<&str> = queries()
            .into_iter()
            .chain(yaml_queries())
            .map(|(label, _)| label)
            .collect();
        let n = labels.len();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), n);
    }
}

//! How sizes, counts and I/O errors read in every tool's output, so that `get_file_info`, the
//! read guards and grep's notes say `1.80 KB`, `1,234,567` and `permission denied` alike.
//!
//! A leaf crate of its own (no dependencies) because both `fs-mcp-read` and `fs-mcp-search` need
//! it and neither should depend on the other for two formatting functions.

/// `1234567` → `1,234,567`.
pub fn group_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Human-readable size, as the original: `98.00 B`, `1.80 KB`, `3.20 MB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    for unit in UNITS {
        if value < 1024.0 {
            return format!("{value:.2} {unit}");
        }
        value /= 1024.0;
    }
    format!("{value:.2} PB")
}

/// A short, stable description of an I/O error (no "os error 2" noise for the common kinds).
pub fn describe_io(err: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::NotFound => "does not exist".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        ErrorKind::AlreadyExists => "already exists".into(),
        ErrorKind::NotADirectory => "a component of the path is not a directory".into(),
        ErrorKind::IsADirectory => "is a directory".into(),
        _ => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_edges_and_io_words() {
        assert_eq!(format_size(0), "0.00 B");
        assert_eq!(format_size(1024), "1.00 KB");
        assert_eq!(format_size(1 << 50), "1.00 PB");
        assert_eq!(group_thousands(100_000), "100,000");
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert_eq!(describe_io(&denied), "permission denied");
    }
}

//! `read_media`: the bytes and MIME type of an image, audio or other binary file, for the MCP
//! layer to turn into image/audio content (it does the base64).
//!
//! The MIME type comes from the extension (a small built-in table); for an unknown or missing
//! extension the first bytes are sniffed (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, PDF, MP3, WAV,
//! OGG, FLAC, M4A/MP4, SVG). Files over the limit (default 10 MiB) are refused before reading.

use std::fmt;
use std::io::Read;

use fs_mcp_sandbox::{AccessError, EntryKind, FinalLink, Sandbox};
use fs_mcp_text::{mime_from_extension, sniff_mime};

/// Default size limit of [`read_media`].
pub const DEFAULT_MAX_MEDIA_BYTES: u64 = 10 * 1024 * 1024;

/// What kind of MCP content the file becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// `image/*`: becomes MCP image content.
    Image,
    /// `audio/*`: becomes MCP audio content.
    Audio,
    /// Text (by its extension, or UTF-8 without NUL bytes): for `read_files`, not media.
    Text,
    /// Anything else (PDF, video, unknown): an embedded resource/blob.
    Other,
}

/// A media file read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaFile {
    /// From the extension, else sniffed from the first bytes.
    pub mime_type: String,
    /// Which MCP content the file becomes.
    pub kind: MediaKind,
    /// The whole file (the MCP layer base64-encodes it).
    pub data: Vec<u8>,
}

/// MIME types of text formats that are not `text/*`.
const TEXT_APPLICATION_TYPES: &[&str] = &[
    "application/xml",
    "application/json",
    "application/jsonl",
    "application/x-ndjson",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
];

/// UTF-8 without control bytes other than tab, line breaks, form feed and escape (and not
/// empty): text `read_files` reads well.
fn looks_like_text(data: &[u8]) -> bool {
    !data.is_empty()
        && data
            .iter()
            .all(|&b| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        && std::str::from_utf8(data).is_ok()
}

fn kind_of(mime: &str) -> MediaKind {
    if mime.starts_with("image/") {
        MediaKind::Image
    } else if mime.starts_with("audio/") {
        MediaKind::Audio
    } else if mime.starts_with("text/") || TEXT_APPLICATION_TYPES.contains(&mime) {
        MediaKind::Text
    } else {
        MediaKind::Other
    }
}

/// Why a media file could not be read. `path` is the name as shown (`Sandbox::display`);
/// `Display` states the facts in one sentence (no next step).
#[derive(Debug)]
pub enum MediaError {
    /// The sandbox refused the path.
    Access(AccessError),
    /// Nothing exists at the path.
    NotFound {
        /// The name as shown.
        path: String,
    },
    /// The path is a directory, a FIFO, a device…
    NotRegular {
        /// The name as shown.
        path: String,
        /// What it is.
        kind: EntryKind,
    },
    /// The file is over the limit.
    TooLarge {
        /// The name as shown.
        path: String,
        /// Its size in bytes (at least this, if it grew while read).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Reading failed.
    Io {
        /// The name as shown.
        path: String,
        /// The error of the read.
        error: std::io::Error,
    },
}

/// A terse line for logs; the binary words the error for the model.
impl fmt::Display for MediaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MediaError::Access(e) => write!(f, "{e}"),
            MediaError::NotFound { path } => write!(f, "{path}: not found"),
            MediaError::NotRegular { path, kind } => {
                write!(f, "{path}: not a regular file ({})", kind.described())
            }
            MediaError::TooLarge { path, size, limit } => {
                write!(f, "{path}: too large ({size} bytes, limit {limit})")
            }
            MediaError::Io { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for MediaError {}

/// Reads a media file whole. `max_bytes: None` uses [`DEFAULT_MAX_MEDIA_BYTES`].
pub fn read_media(
    sandbox: &Sandbox,
    path: &str,
    max_bytes: Option<u64>,
) -> Result<MediaFile, MediaError> {
    let limit = max_bytes.unwrap_or(DEFAULT_MAX_MEDIA_BYTES);
    let located = sandbox
        .locate(path, FinalLink::Follow)
        .map_err(MediaError::Access)?;
    let resolved = located.path;
    let shown = sandbox.display(&resolved);
    let Some(meta) = located.meta else {
        return Err(MediaError::NotFound { path: shown });
    };
    if meta.kind != EntryKind::File {
        return Err(MediaError::NotRegular {
            path: shown,
            kind: meta.kind,
        });
    }
    // Opened by handle; the kind and size that count are the open handle's.
    let opened = sandbox.open_file(path).map_err(MediaError::Access)?;
    let (file, meta) = (opened.file, opened.meta);
    let too_large = |size: u64| MediaError::TooLarge {
        path: shown.clone(),
        size,
        limit,
    };
    if meta.len > limit {
        return Err(too_large(meta.len));
    }
    let mut data = Vec::with_capacity(meta.len as usize);
    // `take` guards against a file that grows between the size check and the read.
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|error| MediaError::Io {
            path: shown.clone(),
            error,
        })?;
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64));
    }
    let name = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mime = mime_from_extension(&name)
        .or_else(|| sniff_mime(&data))
        .or_else(|| looks_like_text(&data).then_some("text/plain"))
        .unwrap_or("application/octet-stream");
    Ok(MediaFile {
        mime_type: mime.to_string(),
        kind: kind_of(mime),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::{Fixture, write_at};

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn mime_by_extension_and_kind() {
        let fx = Fixture::new();
        fx.write("img/a.PNG", PNG);
        fx.write("s.mp3", b"ID3\x03");
        fx.write("d.pdf", b"%PDF-1.7");
        let m = read_media(&fx.sandbox, "img/a.PNG", None).unwrap();
        assert_eq!(
            (m.mime_type.as_str(), m.kind, m.data.as_slice()),
            ("image/png", MediaKind::Image, PNG)
        );
        let m = read_media(&fx.sandbox, "s.mp3", None).unwrap();
        assert_eq!(
            (m.mime_type.as_str(), m.kind),
            ("audio/mpeg", MediaKind::Audio)
        );
        let m = read_media(&fx.sandbox, "d.pdf", None).unwrap();
        assert_eq!(
            (m.mime_type.as_str(), m.kind),
            ("application/pdf", MediaKind::Other)
        );
    }

    #[test]
    fn sniffing_when_extension_unknown() {
        let fx = Fixture::new();
        fx.write("noext", PNG);
        fx.write("pic.bin", b"GIF89a....");
        fx.write("sound.dat", b"RIFF\0\0\0\0WAVEfmt ");
        fx.write(
            "vec",
            b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        );
        fx.write("blob", b"\x01\x02\x03");
        let mime = |p: &str| read_media(&fx.sandbox, p, None).unwrap().mime_type;
        assert_eq!(mime("noext"), "image/png");
        assert_eq!(mime("pic.bin"), "image/gif");
        assert_eq!(mime("sound.dat"), "audio/wav");
        assert_eq!(mime("vec"), "image/svg+xml");
        assert_eq!(mime("blob"), "application/octet-stream");
        fx.write("README", "plain words\n");
        fx.write("notes.md", "# Title\n");
        fx.write("data.json", "{}");
        assert_eq!(mime("README"), "text/plain");
        assert_eq!(mime("notes.md"), "text/markdown");
        assert_eq!(mime("data.json"), "application/json");
        for p in ["README", "notes.md", "data.json"] {
            assert_eq!(
                read_media(&fx.sandbox, p, None).unwrap().kind,
                MediaKind::Text
            );
        }
        assert_eq!(
            read_media(&fx.sandbox, "sound.dat", None).unwrap().kind,
            MediaKind::Audio
        );
    }

    #[test]
    fn limits_and_errors() {
        let fx = Fixture::new();
        fx.write("big.png", vec![0u8; 2048]);
        assert!(matches!(
            read_media(&fx.sandbox, "big.png", Some(1024)),
            Err(MediaError::TooLarge { ref path, size: 2048, limit: 1024 }) if path == "big.png"
        ));
        assert_eq!(
            read_media(&fx.sandbox, "big.png", Some(2048))
                .unwrap()
                .data
                .len(),
            2048
        );
        std::fs::create_dir_all(fx.root.join("dir")).unwrap();
        assert!(matches!(
            read_media(&fx.sandbox, "dir", None),
            Err(MediaError::NotRegular {
                kind: EntryKind::Dir,
                ..
            })
        ));
        assert!(read_media(&fx.sandbox, "missing.png", None).is_err());
        write_at(&fx.outside, "x.png", PNG);
        std::os::unix::fs::symlink(fx.outside.join("x.png"), fx.root.join("link.png")).unwrap();
        assert!(matches!(
            read_media(&fx.sandbox, "link.png", None),
            Err(MediaError::Access(AccessError::Outside { .. }))
        ));
    }
}

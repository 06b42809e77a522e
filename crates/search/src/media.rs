//! `read_media`: the bytes and MIME type of an image, audio or other binary file, for the MCP
//! layer to turn into image/audio content (it does the base64).
//!
//! The MIME type comes from the extension (a small built-in table); for an unknown or missing
//! extension the first bytes are sniffed (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, PDF, MP3, WAV,
//! OGG, FLAC, M4A/MP4, SVG). Files over the limit (default 10 MiB) are refused before reading.

use std::io::Read;

use fs_mcp_sandbox::Sandbox;

use fs_mcp_sandbox::EntryKind;

use crate::SearchError;
use crate::walk;

/// Default size limit of [`read_media`].
pub const DEFAULT_MAX_MEDIA_BYTES: u64 = 10 * 1024 * 1024;

/// What kind of MCP content the file becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
    /// Text (by its extension, or UTF-8 without NUL bytes): for `read_files`, not media.
    Text,
    /// Anything else (PDF, video, unknown): an embedded resource/blob.
    Other,
}

/// A media file read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaFile {
    pub mime_type: String,
    pub kind: MediaKind,
    pub data: Vec<u8>,
}

const BY_EXTENSION: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("svg", "image/svg+xml"),
    ("ico", "image/x-icon"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    ("avif", "image/avif"),
    ("heic", "image/heic"),
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("ogg", "audio/ogg"),
    ("oga", "audio/ogg"),
    ("opus", "audio/opus"),
    ("flac", "audio/flac"),
    ("m4a", "audio/mp4"),
    ("aac", "audio/aac"),
    ("weba", "audio/webm"),
    ("mid", "audio/midi"),
    ("midi", "audio/midi"),
    ("pdf", "application/pdf"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("mov", "video/quicktime"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("wasm", "application/wasm"),
    // Text, named so that a text file sent here is refused with its real type.
    ("txt", "text/plain"),
    ("log", "text/plain"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("rst", "text/x-rst"),
    ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("css", "text/css"),
    ("xml", "application/xml"),
    ("json", "application/json"),
    ("jsonl", "application/jsonl"),
    ("ndjson", "application/x-ndjson"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("toml", "application/toml"),
    ("js", "text/javascript"),
    ("mjs", "text/javascript"),
    ("ts", "text/x-typescript"),
    ("py", "text/x-python"),
    ("rs", "text/x-rust"),
    ("go", "text/x-go"),
    ("java", "text/x-java"),
    ("c", "text/x-c"),
    ("h", "text/x-c"),
    ("cpp", "text/x-c++"),
    ("sh", "application/x-sh"),
    ("sql", "application/sql"),
];

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

/// The MIME type for a file name's extension, if known.
pub fn mime_from_extension(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    BY_EXTENSION
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|(_, m)| *m)
}

/// The MIME type guessed from the first bytes of a file, if recognised.
pub fn sniff_mime(head: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| head.starts_with(magic);
    let at = |offset: usize, magic: &[u8]| head.get(offset..offset + magic.len()) == Some(magic);
    Some(if starts(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if starts(b"\xff\xd8\xff") {
        "image/jpeg"
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        "image/gif"
    } else if starts(b"RIFF") && at(8, b"WEBP") {
        "image/webp"
    } else if starts(b"RIFF") && at(8, b"WAVE") {
        "audio/wav"
    } else if starts(b"BM") && head.len() >= 26 {
        "image/bmp"
    } else if starts(b"II*\0") || starts(b"MM\0*") {
        "image/tiff"
    } else if starts(b"\0\0\x01\0") {
        "image/x-icon"
    } else if starts(b"%PDF-") {
        "application/pdf"
    } else if starts(b"ID3") || (head.len() >= 2 && head[0] == 0xff && head[1] & 0xe0 == 0xe0) {
        "audio/mpeg"
    } else if starts(b"OggS") {
        "audio/ogg"
    } else if starts(b"fLaC") {
        "audio/flac"
    } else if at(4, b"ftyp") {
        if at(8, b"M4A ") {
            "audio/mp4"
        } else {
            "video/mp4"
        }
    } else if looks_like_svg(head) {
        "image/svg+xml"
    } else {
        return None;
    })
}

fn looks_like_svg(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(512)]).to_ascii_lowercase();
    let text = text.trim_start_matches('\u{feff}').trim_start();
    (text.starts_with("<svg") || text.starts_with("<?xml")) && text.contains("<svg")
}

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

/// Reads a media file whole. `max_bytes: None` uses [`DEFAULT_MAX_MEDIA_BYTES`].
pub fn read_media(
    sandbox: &Sandbox,
    path: &str,
    max_bytes: Option<u64>,
) -> Result<MediaFile, SearchError> {
    let limit = max_bytes.unwrap_or(DEFAULT_MAX_MEDIA_BYTES);
    let (resolved, meta) = walk::resolve_existing(sandbox, path)?;
    let shown = sandbox.display(&resolved);
    if meta.kind != EntryKind::File {
        return Err(SearchError::WrongType {
            path: shown,
            message: format!("is {}, not a regular file.", meta.kind.described()),
        });
    }
    // Opened by handle; the kind and size that count are the open handle's.
    let opened = sandbox.open_file(path)?;
    let (file, meta) = (opened.file, opened.meta);
    if meta.len > limit {
        return Err(SearchError::TooLarge {
            path: shown,
            size: meta.len,
            limit,
        });
    }
    let mut data = Vec::with_capacity(meta.len as usize);
    // `take` guards against a file that grows between the size check and the read.
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|e| SearchError::io(&shown, &e))?;
    if data.len() as u64 > limit {
        return Err(SearchError::TooLarge {
            path: shown,
            size: data.len() as u64,
            limit,
        });
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
    use crate::testutil::Fixture;

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
        let err = read_media(&fx.sandbox, "big.png", Some(1024))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "Error: big.png is 2.00 KB (2,048 bytes), larger than the 1.00 KB limit."
        );
        assert_eq!(
            read_media(&fx.sandbox, "big.png", Some(2048))
                .unwrap()
                .data
                .len(),
            2048
        );
        fx.mkdir("dir");
        assert!(
            read_media(&fx.sandbox, "dir", None)
                .unwrap_err()
                .to_string()
                .contains("not a regular file")
        );
        assert!(read_media(&fx.sandbox, "missing.png", None).is_err());
        crate::testutil::write_at(&fx.outside, "x.png", PNG);
        fx.symlink(fx.outside.join("x.png"), "link.png");
        assert!(
            read_media(&fx.sandbox, "link.png", None)
                .unwrap_err()
                .to_string()
                .starts_with("Access denied")
        );
    }
}

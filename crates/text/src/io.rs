//! I/O errors in words: `permission denied`, not `Permission denied (os error 13)`.

use std::io::{Error, ErrorKind};

/// A short, stable description of an I/O error (no "os error 2" noise for the common kinds).
pub fn describe_io(err: &Error) -> String {
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
    fn common_kinds_in_words_others_as_the_os_says() {
        let denied = Error::from(ErrorKind::PermissionDenied);
        assert_eq!(describe_io(&denied), "permission denied");
        assert_eq!(
            describe_io(&Error::from(ErrorKind::NotFound)),
            "does not exist"
        );
        let other = Error::other("disk on fire");
        assert_eq!(describe_io(&other), "disk on fire");
    }
}

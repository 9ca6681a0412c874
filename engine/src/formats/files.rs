//! The one way the project writes a file (whole or not at all) and the
//! one way it reads one (up to a size, so that `/dev/zero` or a wrong
//! path to a huge file is refused instead of read without end).

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The temporary file `write_atomic` writes before its rename: a hidden
/// sibling of `path` with a fixed name, so that a process killed between
/// the write and the rename leaves at most one, which the next save of
/// the same file replaces.
pub fn temp_path(path: &Path) -> io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a file path", path.display()),
        )
    })?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    Ok(dir
        .unwrap_or(Path::new("."))
        .join(format!(".{}.tmp", name.to_string_lossy())))
}

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// synced to disk, then renamed over `path`: a crash leaves either the old
/// file or the new one, never half of one. Errors name the file. A target
/// that exists and is not a regular file (a device, a FIFO, a folder) is
/// refused: the rename would replace it, even `/dev/full`, as root.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Ok(meta) = fs::metadata(path) {
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} exists and is not a regular file", path.display()),
            ));
        }
    }
    let tmp = temp_path(path)?;
    let named = |what: &str, p: &Path, e: io::Error| {
        io::Error::new(e.kind(), format!("{what} {}: {e}", p.display()))
    };
    let mut f = fs::File::create(&tmp).map_err(|e| named("creating", &tmp, e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| named("writing", &tmp, e))?;
    drop(f);
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        named("renaming onto", path, e)
    })
}

/// Reads the whole of `path` when it holds at most `limit` bytes; a
/// longer file or an endless one (a device, a pipe) is refused after
/// `limit + 1` bytes. Errors name the file.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(limit.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: longer than {limit} bytes", path.display()),
        ));
    }
    Ok(bytes)
}

/// The most a match file, a table or a progress file may hold: the
/// longest real match files are well under a megabyte.
pub const TEXT_LIMIT: u64 = 64 << 20;

/// [`read_bounded`] at [`TEXT_LIMIT`], as UTF-8 text.
pub fn read_text(path: &Path) -> io::Result<String> {
    String::from_utf8(read_bounded(path, TEXT_LIMIT)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not UTF-8 text: {e}", path.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded() {
        let dir = std::env::temp_dir().join(format!("sheshbesh-read-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("ten");
        fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_bounded(&p, 10).unwrap(), b"0123456789");
        let e = read_bounded(&p, 9).unwrap_err();
        assert!(e.to_string().contains("longer than 9 bytes"), "{e}");
        if Path::new("/dev/zero").exists() {
            assert!(read_bounded(Path::new("/dev/zero"), 1 << 20).is_err());
        }
        let e = read_bounded(&dir.join("missing"), 9).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writes_whole_files_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sheshbesh-files-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.txt");
        write_atomic(&p, b"one").unwrap();
        // A save killed before its rename left its temporary file behind:
        // the next save replaces it.
        fs::write(temp_path(&p).unwrap(), b"half").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert!(!temp_path(&p).unwrap().exists());
        let err = write_atomic(&dir.join("missing/b.txt"), b"x").unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
        // What is not a regular file is left as it is.
        for target in [Path::new("/dev/null"), dir.as_path()] {
            let err = write_atomic(target, b"x").unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
        assert!(dir.is_dir());
        fs::remove_dir_all(&dir).unwrap();
    }
}

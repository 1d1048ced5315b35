//! Session key files: `convoy keygen` writes one, `--key-file` reads it (docs/keyed-sessions.md).
//!
//! A key file holds 32 random bytes as 64 hexadecimal digits on one line (blank lines and lines starting with
//! `#` are ignored). It must be readable by its owner only: a file that group or others may read is refused,
//! naming the file and its mode. With `CONVOY_KEY_PASSPHRASE` set, the session key is the BLAKE3 keyed hash of
//! the passphrase under the file's key, so the file alone does not open the session.

use convoy_proto::auth::SessionKey;
use std::fmt::Write as _;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The environment variable whose value, when set, is mixed into the key file's key.
pub const PASSPHRASE_VAR: &str = "CONVOY_KEY_PASSPHRASE";

/// `N` bytes from the operating system's random source.
pub fn os_random<const N: usize>() -> io::Result<[u8; N]> {
    let mut b = [0u8; N];
    File::open("/dev/urandom")?.read_exact(&mut b)?;
    Ok(b)
}

fn error(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

/// Write a new key file at `path` (mode 0600); refuses to replace an existing file unless `force`.
pub fn generate(path: &Path, force: bool) -> io::Result<()> {
    let key: [u8; 32] = os_random()?;
    let mut text = String::from(
        "# convoy session key: keep it secret, give it only to the session's members\n",
    );
    for b in key {
        let _ = write!(text, "{b:02x}");
    }
    text.push('\n');
    let mut opts = OpenOptions::new();
    opts.write(true).mode(0o600);
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    let mut f = opts.open(path).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => error(path, "exists already (--force replaces it)"),
        _ => error(path, e),
    })?;
    // An existing file keeps its mode on truncation: make it the owner's only.
    f.set_permissions(fs::Permissions::from_mode(0o600))?;
    f.write_all(text.as_bytes())
}

/// Read the session key from `path`, with the passphrase in `passphrase` mixed in when given.
pub fn load(path: &Path, passphrase: Option<&str>) -> io::Result<SessionKey> {
    let meta = fs::metadata(path).map_err(|e| error(path, e))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(error(
            path,
            format!(
                "mode {mode:03o} lets others read the key: chmod 600 it (convoy keygen writes 600)"
            ),
        ));
    }
    let text = fs::read_to_string(path).map_err(|e| error(path, e))?;
    let mut key = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if key.is_some() {
            return Err(error(path, format!("line {}: a second key", n + 1)));
        }
        key = Some(parse_hex(line).map_err(|what| error(path, format!("line {}: {what}", n + 1)))?);
    }
    let key = key.ok_or_else(|| error(path, "no key (64 hexadecimal digits)"))?;
    Ok(SessionKey::from_bytes(match passphrase {
        Some(p) => *blake3::keyed_hash(&key, p.as_bytes()).as_bytes(),
        None => key,
    }))
}

fn parse_hex(line: &str) -> Result<[u8; 32], String> {
    if line.len() != 64 {
        return Err(format!(
            "{} characters, a key is 64 hexadecimal digits",
            line.len()
        ));
    }
    let mut key = [0u8; 32];
    for (i, b) in key.iter_mut().enumerate() {
        let digits = &line[2 * i..2 * i + 2];
        *b = u8::from_str_radix(digits, 16)
            .map_err(|_| format!("column {}: {digits:?} is not hexadecimal", 2 * i + 1))?;
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("convoy-key-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_generated_key_loads_and_a_passphrase_changes_it() {
        let d = scratch("gen");
        let p = d.join("k");
        generate(&p, false).unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let a = load(&p, None).unwrap();
        assert_eq!(a, load(&p, None).unwrap());
        assert_ne!(a, load(&p, Some("secret")).unwrap());
        let again = generate(&p, false).unwrap_err().to_string();
        assert!(again.contains("exists already"), "{again}");
        generate(&p, true).unwrap();
        assert_ne!(a, load(&p, None).unwrap(), "a new key");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bad_key_files_are_refused_naming_file_and_place() {
        let d = scratch("bad");
        let p = d.join("k");
        let key = "ab".repeat(32);
        fs::write(&p, format!("{key}\n")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        let e = load(&p, None).unwrap_err().to_string();
        assert!(
            e.contains("mode 644") && e.contains(&p.display().to_string()),
            "{e}"
        );
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        assert!(load(&p, None).is_ok());
        for (text, says) in [
            ("# only a comment\n", "no key"),
            ("abc\n", "line 1: 3 characters"),
            (&format!("\n{}zz\n", "ab".repeat(31)), "line 2: column 63"),
            (&format!("{key}\n{key}\n"), "line 2: a second key"),
        ] {
            fs::write(&p, text).unwrap();
            let e = load(&p, None).unwrap_err().to_string();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        fs::remove_dir_all(&d).unwrap();
    }
}

//! Reading the files a user names (intents, locks, golden files, manifests, site files) safely: a path
//! is read only when, fully resolved (every folder on the way, every link), it lies inside the
//! repository around it ([`crate::boundary`]: git's work tree, else the folder of `aifab.yaml`, else the
//! file's own folder), so a link a clone or a tarball carries to `/proc/self/environ` or `/dev/zero` is
//! refused with its path; only regular files are read, and every read stops at a size bound.

use crate::boundary::{Origin, Refusal, Root};
use std::io::Read as _;
use std::path::Path;

/// Refuses `path` when, fully resolved, it lies outside the repository around it (see
/// [`Root::of`]): a link, or a folder on the way that is a link, that leaves it. The message names the
/// path, where it resolves to and the root.
pub fn inside_repository(path: &Path) -> Result<(), Refusal> {
    Root::of(path).admit(path, Origin::Repository)
}

/// The largest site file read (the project file, a site platform file, a site template): 4 MiB, as an
/// intent.
pub const SITE_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Why a bounded read failed.
#[derive(Debug)]
pub enum ReadError {
    /// There is no file at the path.
    Missing,
    /// The file is larger than the bound (its size, or at least the bound plus one).
    TooLarge(u64),
    /// A link outside the repository, not a regular file, or an I/O error: the message names the path.
    Refused(String),
    /// The path resolves outside the repository around it (boxed: a refusal names three paths).
    Outside(Box<Refusal>),
}

impl ReadError {
    /// The error as one line naming `path`.
    pub fn describe(&self, path: &Path, limit: u64) -> String {
        match self {
            ReadError::Missing => format!("{}: no such file", path.display()),
            ReadError::TooLarge(n) => format!(
                "{}: {n} bytes, larger than the {limit} bytes aifab reads",
                path.display()
            ),
            ReadError::Refused(m) => m.clone(),
            ReadError::Outside(r) => r.to_string(),
        }
    }
}

/// Reads the bytes of the regular file at `path`, at most `limit` bytes: a link outside the
/// repository, a folder, a device, a FIFO or a socket is refused without being opened for reading
/// (a FIFO or `/dev/zero` can never make it read forever), and a file that grows while it is read
/// stops at the bound.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    inside_repository(path).map_err(|r| ReadError::Outside(Box::new(r)))?;
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::Missing,
        _ => ReadError::Refused(format!("{}: {e}", path.display())),
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(ReadError::Refused(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let file = open_nonblocking(path).map_err(io)?;
    // The path may have been swapped for another kind of file between the two looks.
    if !file.metadata().map_err(io)?.is_file() {
        return Err(ReadError::Refused(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit + 1));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text (an invalid byte is refused, naming the path).
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes)
        .map_err(|_| ReadError::Refused(format!("{}: not UTF-8 text", path.display())))
}

/// [`read_text`] as shared text, read straight into the shared allocation: a lock of tens of MB is not
/// copied a second time (as `Arc::from(String)` would).
pub fn read_shared_text(path: &Path, limit: u64) -> Result<std::sync::Arc<str>, ReadError> {
    inside_repository(path).map_err(|r| ReadError::Outside(Box::new(r)))?;
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::Missing,
        _ => ReadError::Refused(format!("{}: {e}", path.display())),
    };
    let file = open_nonblocking(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() || meta.len() > limit {
        // Refused as `read_text` refuses it.
        return read_text(path, limit).map(std::sync::Arc::from);
    }
    let zeroed = std::sync::Arc::<[u8]>::new_zeroed_slice(meta.len() as usize);
    // SAFETY: zero bytes are valid `u8`s.
    let mut bytes: std::sync::Arc<[u8]> = unsafe { zeroed.assume_init() };
    let whole = std::sync::Arc::get_mut(&mut bytes).is_some_and(|slot| {
        let mut file = &file;
        let mut more = [0u8; 1];
        file.read_exact(slot).is_ok() && file.read(&mut more).is_ok_and(|n| n == 0)
    });
    if !whole || std::str::from_utf8(&bytes).is_err() {
        // The file changed while it was read, or is not text: read as `read_text` reads it.
        return read_text(path, limit).map(std::sync::Arc::from);
    }
    // SAFETY: the bytes are UTF-8 (checked above), and `str` has the layout of `[u8]`.
    Ok(unsafe { std::sync::Arc::from_raw(std::sync::Arc::into_raw(bytes) as *const str) })
}

/// Reads the regular file at `path` without following a symbolic link at all (aifab's own files:
/// manifests, journals, indexes), at most `limit` bytes.
pub fn read_own(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::Missing,
        _ => ReadError::Refused(format!("{}: {e}", path.display())),
    };
    let file = open_no_follow(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(ReadError::Refused(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit + 1));
    }
    Ok(bytes)
}

/// Reads the text of a file below a folder already admitted ([`crate::boundary::Root::admit`]), at
/// most `limit` bytes: opened without following a link, so no resolution per file (a golden folder of
/// thousands of files is checked once); a link is read by [`read_text`], with its full check.
pub fn read_text_below(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = match read_own(path, limit) {
        Err(ReadError::Refused(_))
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) =>
        {
            return read_text(path, limit);
        }
        other => other?,
    };
    String::from_utf8(bytes)
        .map_err(|_| ReadError::Refused(format!("{}: not UTF-8 text", path.display())))
}

/// Opens `path` for reading without waiting on a FIFO's writer (the caller checks the kind).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Opens `path` for reading; a symbolic link fails to open instead of being followed, and a FIFO does
/// not block.
#[cfg(unix)]
pub fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

/// Opens `path` for reading, when it is not a symbolic link.
#[cfg(not(unix))]
pub fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    std::fs::File::open(path)
}

/// Whether process `pid` is alive (a process of another user counts as alive). Where this cannot be
/// known, every process is alive: nothing of it is ever removed.
#[cfg(unix)]
pub fn pid_alive(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if p <= 0 {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let rc = unsafe { libc::kill(p, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
pub fn pid_alive(_: u32) -> bool {
    true
}

/// When process `pid` started: field 22 of Linux's `/proc/PID/stat` (clock ticks since boot), which
/// tells a process from a later one given the same id. `None` when it is gone or this cannot be known.
#[cfg(target_os = "linux")]
pub fn process_start(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and parentheses: the fields
    // after the last `)` start at field 3.
    let (_, rest) = text.rsplit_once(')')?;
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// No start time here: a recorded process id is judged by [`pid_alive`] alone.
#[cfg(not(target_os = "linux"))]
pub fn process_start(_: u32) -> Option<u64> {
    None
}

/// When process `pid` started, by the wall clock (to the second: the boot time of `/proc/stat` plus
/// [`process_start`]'s clock ticks); `None` when it is gone or this cannot be known.
#[cfg(target_os = "linux")]
pub fn process_started_at(pid: u32) -> Option<std::time::SystemTime> {
    let ticks = process_start(pid)?;
    // SAFETY: sysconf only reads a system constant.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let boot: u64 = stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let secs = boot.checked_add(ticks / per_second.max(1))?;
    std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(secs))
}

/// No start time here.
#[cfg(not(target_os = "linux"))]
pub fn process_started_at(_: u32) -> Option<std::time::SystemTime> {
    None
}

/// Whether process `pid` may be the one that last changed a file or folder at `changed` (its
/// modification time): [`pid_alive`], and where start times can be read, the process now under that
/// id started no later than two seconds after that change (one that started later got the id of a
/// process that has ended, and did not make the file).
pub fn process_alive_before(pid: u32, changed: Option<std::time::SystemTime>) -> bool {
    if !pid_alive(pid) {
        return false;
    }
    match (changed, process_started_at(pid)) {
        (Some(changed), Some(started)) => started <= changed + std::time::Duration::from_secs(2),
        _ => true,
    }
}

/// Whether the process that recorded itself as `pid`, started at `start` ([`process_start`], when it
/// was known), still runs: [`pid_alive`], and where start times can be read, the process now under
/// that id started when the recorded one did (an id the system gave to another process since is not
/// the recorded process).
pub fn process_alive(pid: u32, start: Option<u64>) -> bool {
    if !pid_alive(pid) {
        return false;
    }
    match (start, process_start(pid)) {
        (Some(then), Some(now)) => then == now,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let t = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp")
            .join(format!("aifab-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&t);
        std::fs::create_dir_all(&t).expect("mkdir");
        t
    }

    /// A process is the recorded one only with the recorded start time; a later one under its id
    /// (another start time) is not, and a file it could not have made says so by its time.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_is_known_by_its_id_and_start_time() {
        let me = std::process::id();
        let start = process_start(me).expect("this process's start time");
        assert!(process_alive(me, Some(start)));
        assert!(process_alive(me, None));
        assert!(
            !process_alive(me, Some(start + 1)),
            "another start: another process"
        );
        let started = process_started_at(me).expect("a wall-clock start");
        let long_ago = started - std::time::Duration::from_secs(3600);
        assert!(process_alive_before(me, Some(std::time::SystemTime::now())));
        assert!(
            !process_alive_before(me, Some(long_ago)),
            "made before it started"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_repository_and_special_files_are_refused() {
        let t = scratch("links");
        std::fs::create_dir_all(t.join(".git")).expect("a repository");
        std::fs::write(t.join("a.yaml"), "x: 1\n").expect("write");
        std::os::unix::fs::symlink("a.yaml", t.join("in.yaml")).expect("link");
        std::os::unix::fs::symlink("/proc/self/environ", t.join("env.yaml")).expect("link");
        std::os::unix::fs::symlink("/dev/zero", t.join("zero.yaml")).expect("link");
        assert_eq!(
            read_text(&t.join("in.yaml"), 100).expect("inside"),
            "x: 1\n"
        );
        for bad in ["env.yaml", "zero.yaml"] {
            let e = read_text(&t.join(bad), 100).expect_err(bad);
            assert!(
                matches!(&e, ReadError::Outside(r) if r.to_string().contains("outside the repository")),
                "{bad}: {e:?}"
            );
            let e = read_shared_text(&t.join(bad), 100).expect_err(bad);
            assert!(
                matches!(&e, ReadError::Outside(r) if r.to_string().contains("outside the repository")),
                "shared {bad}: {e:?}"
            );
        }
        // Shared text reads as `read_text` reads, and refuses what it refuses.
        assert_eq!(
            &*read_shared_text(&t.join("in.yaml"), 100).expect("inside"),
            "x: 1\n"
        );
        std::fs::write(t.join("bad.yaml"), b"x: \xff\n").expect("write");
        for (file, limit) in [("a.yaml", 2), ("bad.yaml", 100), ("none", 100)] {
            assert_eq!(
                format!("{:?}", read_shared_text(&t.join(file), limit)),
                format!(
                    "{:?}",
                    read_text(&t.join(file), limit).map(std::sync::Arc::<str>::from)
                ),
                "{file}"
            );
        }
        assert!(matches!(
            read_bounded(Path::new("/dev/zero"), 100),
            Err(ReadError::Refused(_))
        ));
        assert!(matches!(
            read_bounded(&t.join("a.yaml"), 2),
            Err(ReadError::TooLarge(5))
        ));
        assert!(matches!(
            read_bounded(&t.join("none"), 2),
            Err(ReadError::Missing)
        ));
        assert!(
            read_own(&t.join("in.yaml"), 100).is_err(),
            "own files: no link"
        );
        let _ = std::fs::remove_dir_all(&t);
    }

    #[test]
    fn this_process_is_alive() {
        assert!(pid_alive(std::process::id()));
    }
}

//! One `aifab render --out` as the user runs it: this binary in a process of its own, timed from spawn
//! to exit, with the peak resident set size the kernel reports for it (`wait4`'s `ru_maxrss`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Why a timed render gave no figures: the file or program, the render that failed (with what it
/// printed), or the wait.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProcessError {
    /// The log could not be created, or the program started.
    #[error("{}: {error}", path.display())]
    Io {
        /// The log file or the program.
        path: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// The child's pid does not fit the system's type.
    #[error("{0}")]
    Pid(#[source] std::num::TryFromIntError),
    /// Waiting for the child failed.
    #[error("waiting for the render: {0}")]
    Wait(#[source] std::io::Error),
    /// Waiting for the child failed (where the system gives no usage).
    #[cfg(not(unix))]
    #[error("{0}")]
    Child(#[source] std::io::Error),
    /// The render failed.
    #[error("render of {} failed:\n{log}", intent.display())]
    Failed {
        /// The intent rendered.
        intent: PathBuf,
        /// What it printed on stderr.
        log: String,
    },
    /// The render printed no summary line.
    #[error("render of {} printed no summary:\n{log}", intent.display())]
    NoSummary {
        /// The intent rendered.
        intent: PathBuf,
        /// What it printed on stderr.
        log: String,
    },
}

/// The error for an I/O failure on `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ProcessError + '_ {
    move |error| ProcessError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// What one render process took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Run {
    /// Wall time from spawn to exit, milliseconds.
    pub wall_ms: f64,
    /// Peak resident set size, MiB (0 where the system does not say).
    pub peak_rss_mib: f64,
    /// Switches rendered, as the render reported them.
    pub devices: u64,
    /// Files in the output.
    pub files: u64,
    /// Bytes in the output.
    pub bytes: u64,
    /// CPU time in user mode, milliseconds (0 where the system does not say).
    pub user_ms: f64,
    /// CPU time in the kernel, milliseconds (0 where the system does not say).
    pub sys_ms: f64,
}

/// Runs `exe render <intent> --out <out>` (warnings on, as a user runs it; they go to `log` with the
/// rest of stderr) and times it. The render keeps its file index in `cache` (`AIFAB_CACHE_DIR`), inside
/// the bench's run folder, so that the indexes of the bench's throw-away outputs go with it instead of
/// piling up in the user's cache.
pub(crate) fn render(
    exe: &Path,
    intent: &Path,
    out: &Path,
    log: &Path,
    cache: &Path,
) -> Result<Run, ProcessError> {
    render_with(exe, intent, out, &[], (log, cache))
}

/// [`render`] with `extra` arguments (`--only <host>`).
pub(crate) fn render_with(
    exe: &Path,
    intent: &Path,
    out: &Path,
    extra: &[&str],
    (log, cache): (&Path, &Path),
) -> Result<Run, ProcessError> {
    let stderr = std::fs::File::create(log).map_err(io(log))?;
    let start = Instant::now();
    let child = Command::new(exe)
        .arg("render")
        .arg(intent)
        .arg("--out")
        .arg(out)
        .args(extra)
        .env(aifab::write::CACHE_ENV, cache)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(io(exe))?;
    let (ok, peak_rss_mib, (user_ms, sys_ms)) = wait(child)?;
    let wall_ms = start.elapsed().as_secs_f64() * 1000.0;
    let text = std::fs::read_to_string(log).unwrap_or_default();
    if !ok {
        return Err(ProcessError::Failed {
            intent: intent.to_path_buf(),
            log: text,
        });
    }
    let Some((devices, files, bytes)) = summary(&text) else {
        return Err(ProcessError::NoSummary {
            intent: intent.to_path_buf(),
            log: text,
        });
    };
    Ok(Run {
        wall_ms,
        peak_rss_mib,
        devices,
        files,
        bytes,
        user_ms,
        sys_ms,
    })
}

/// The numbers of the summary line `aifab render` ends with: `<out>: N devices, N files, N bytes written`.
fn summary(stderr: &str) -> Option<(u64, u64, u64)> {
    let line = stderr
        .lines()
        .rev()
        .find(|l| l.ends_with(" bytes written"))?;
    let (_, counts) = line.rsplit_once(": ")?;
    let mut n = counts
        .split(", ")
        .map(|part| part.split(' ').next().and_then(|v| v.parse().ok()));
    Some((n.next()??, n.next()??, n.next()??))
}

/// Waits for `child`: whether it succeeded, its peak RSS in MiB, and its user and system CPU time in
/// milliseconds.
#[cfg(unix)]
fn wait(child: std::process::Child) -> Result<(bool, f64, (f64, f64)), ProcessError> {
    let pid = libc::pid_t::try_from(child.id()).map_err(ProcessError::Pid)?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own child, not yet waited for (`Child` was never waited on); both
        // pointers are to live locals of the right types.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(ProcessError::Wait(err));
        }
    }
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    // Linux reports ru_maxrss in KiB.
    let cpu = (ms(usage.ru_utime), ms(usage.ru_stime));
    Ok((ok, usage.ru_maxrss as f64 / 1024.0, cpu))
}

/// Waits for `child`: whether it succeeded; the peak RSS and CPU times are unknown here.
#[cfg(not(unix))]
fn wait(mut child: std::process::Child) -> Result<(bool, f64, (f64, f64)), ProcessError> {
    let status = child.wait().map_err(ProcessError::Child)?;
    Ok((status.success(), 0.0, (0.0, 0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_render_summary() {
        let err = "warning: x\nout/100k: 2144 devices, 4289 files, 351000000 bytes written\n";
        assert_eq!(summary(err), Some((2144, 4289, 351_000_000)));
        assert_eq!(summary("error: boom\n"), None);
    }
}

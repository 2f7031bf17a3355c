//! What writing bytes costs on this machine, apart from aifab: into new files (pages the kernel takes
//! anew for the page cache) and over the bytes of a file that exists (pages it already holds). On a
//! virtual machine whose balloon hands freed memory back to the host, the first is many times the
//! second, and it bounds how fast any render that writes new files can be (docs/performance.md).

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

/// Bytes each probe writes.
pub(crate) const PROBE_BYTES: usize = 64 << 20;

/// Bytes per write call.
const CHUNK: usize = 1 << 20;

/// Probes of each kind; the median is reported.
const PROBES: usize = 3;

/// Milliseconds per MiB written, both ways.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WriteCost {
    /// Into a new file.
    pub new_ms_per_mib: f64,
    /// Over the bytes of an existing file of the same size.
    pub in_place_ms_per_mib: f64,
}

impl WriteCost {
    /// The milliseconds writing `bytes` of new files costs here, the kernel's share alone.
    pub(crate) fn new_files_ms(&self, bytes: u64) -> f64 {
        bytes as f64 / f64::from(1u32 << 20) * self.new_ms_per_mib
    }
}

/// The probe files' name prefix.
const PREFIX: &str = ".aifab-write-probe-";

/// Times [`PROBES`] writes of [`PROBE_BYTES`] into new files in `dir` (named with `tag`), then as many
/// over the bytes of the first. The files stay until [`remove`]: freeing their pages right before a
/// render would hand it memory the host has not taken back yet. `None` when a file cannot be written.
pub(crate) fn measure(dir: &Path, tag: &str) -> Option<WriteCost> {
    measure_bytes(dir, tag, PROBE_BYTES)
}

/// [`measure`] with probes of `size` bytes (whole MiB).
fn measure_bytes(dir: &Path, tag: &str, size: usize) -> Option<WriteCost> {
    // One MiB written over and over: a buffer of the probe's size would raise the bench's own peak RSS,
    // which the renders it spawns inherit in `ru_maxrss` (the kernel carries it over the exec).
    let chunk = vec![b'x'; CHUNK];
    let paths: Vec<_> = (0..PROBES)
        .map(|i| dir.join(format!("{PREFIX}{tag}-{i}")))
        .collect();
    let timed = |path: &Path, create: bool| -> Option<f64> {
        let start = Instant::now();
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(create)
            .open(path)
            .ok()?;
        for _ in 0..size / CHUNK {
            f.write_all(&chunk).ok()?;
        }
        drop(f);
        Some(start.elapsed().as_secs_f64() * 1000.0)
    };
    let new: Option<Vec<f64>> = paths.iter().map(|p| timed(p, true)).collect();
    let in_place: Option<Vec<f64>> = new
        .as_ref()
        .and_then(|_| (0..PROBES).map(|_| timed(&paths[0], false)).collect());
    let mib = (size >> 20).max(1) as f64;
    Some(WriteCost {
        new_ms_per_mib: median(new?) / mib,
        in_place_ms_per_mib: median(in_place?) / mib,
    })
}

/// Removes the probe files [`measure`] left in `dir`.
pub(crate) fn remove(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(PREFIX) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The middle value (the upper one of an even count).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_writes_and_cleans_up() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/bench-write-cost");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("keep"), "").expect("write");
        let cost = measure_bytes(&dir, "before", 2 * CHUNK).expect("a writable folder");
        assert!(cost.new_ms_per_mib > 0.0 && cost.in_place_ms_per_mib > 0.0);
        assert!(measure_bytes(&dir, "after", CHUNK).is_some());
        let size = std::fs::metadata(dir.join(format!("{PREFIX}before-0")))
            .expect("probe")
            .len();
        assert_eq!(size, 2 * CHUNK as u64);
        let names = || -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(&dir)
                .expect("read")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names().len(), 1 + 2 * PROBES, "{:?}", names());
        remove(&dir);
        assert_eq!(names(), ["keep"]);
        assert_eq!(measure(&dir.join("missing"), "x"), None);
        std::fs::remove_dir_all(&dir).expect("clean up");
        let c = WriteCost {
            new_ms_per_mib: 4.0,
            in_place_ms_per_mib: 0.25,
        };
        assert_eq!(c.new_files_ms(3 << 20), 12.0);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
    }
}

//! What about the machine moves the bench's figures, said beside them: the two costs outside aifab
//! that docs/performance.md measures apart. Linux only; elsewhere, and where `/proc` or `/sys` says
//! nothing, there is nothing to say.

use super::write_cost::WriteCost;
use std::path::Path;

/// The notes for a bench whose renders wrote under `dir`, one sentence each. `largest` is the fabric
/// whose first render wrote the most bytes, with that number; `cost` what writing cost under `dir`
/// before and after the renders.
pub(crate) fn notes(
    dir: &Path,
    largest: Option<(&str, u64)>,
    cost: Option<(WriteCost, WriteCost)>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let (Some((name, bytes)), Some((before, after))) = (largest, cost) {
        notes.push(write_note(name, bytes, before, after));
    }
    let read = |p: &str| std::fs::read_to_string(p).ok();
    if let (Some(info), Ok(dir)) = (read("/proc/self/mountinfo"), std::fs::canonicalize(dir))
        && let Some(m) = mount_of(&info, &dir)
        && m.fs_type == "ext4"
        && let Some(journals) = journals()
        && !has_journal(&journals, &device_name(&m.source))
    {
        notes.push(format!(
            "The renders wrote to ext4 without a journal ({} on {}): there every new file steps over each inode freed in the last 60-300 s, so a render soon after a large removal is slower (docs/performance.md).",
            m.source, m.mount_point
        ));
    }
    if free_page_reporting() {
        notes.push(
            "This is a virtual machine whose balloon reports freed memory to the host (virtio-balloon free page reporting): a render's first touch of such memory costs a fault in the host, and the figures can move by 2× from one run to the next (docs/performance.md).".to_string(),
        );
    }
    notes
}

/// What writing new files cost here before and after the renders, against rewriting in place, and
/// what those rates make of the largest first render's output.
fn write_note(name: &str, bytes: u64, before: WriteCost, after: WriteCost) -> String {
    format!(
        "Writing new files took {:.2} ms per MiB here before the renders and {:.2} after, rewriting a file in place {:.2} and {:.2} ({} MiB probes): at those rates the {name} first render's {:.0} MB of new files cost {:.0} and {:.0} ms of kernel time for that alone, whatever aifab does (docs/performance.md).",
        before.new_ms_per_mib,
        after.new_ms_per_mib,
        before.in_place_ms_per_mib,
        after.in_place_ms_per_mib,
        super::write_cost::PROBE_BYTES >> 20,
        bytes as f64 / 1e6,
        before.new_files_ms(bytes),
        after.new_files_ms(bytes),
    )
}

/// A mount, from one line of `/proc/self/mountinfo`.
#[derive(Debug, PartialEq, Eq)]
struct Mount {
    mount_point: String,
    fs_type: String,
    source: String,
}

/// The mount that holds `path` (absolute, canonical): the one with the longest mount point that is
/// `path` or one of its ancestors; the last such line wins (a later mount hides an earlier one).
fn mount_of(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        // `ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS`
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let (Some(point), mut right) = (left.split(' ').nth(4), right.split(' ')) else {
            continue;
        };
        let (Some(fs_type), Some(source)) = (right.next(), right.next()) else {
            continue;
        };
        let point = unescape(point);
        let longer = best
            .as_ref()
            .is_none_or(|b| point.len() >= b.mount_point.len());
        if path.starts_with(&point) && longer {
            best = Some(Mount {
                mount_point: point,
                fs_type: fs_type.to_string(),
                source: unescape(source),
            });
        }
    }
    best
}

/// A mountinfo field with its octal escapes (`\040` for a space, ...) undone.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest
            .get(i + 1..i + 4)
            .and_then(|d| u8::from_str_radix(d, 8).ok());
        match code {
            Some(c) => {
                out.push(char::from(c));
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The journals the kernel runs: the entries of `/proc/fs/jbd2`, each `<device>-<inode>`; `None` when
/// that folder cannot be read (no journal code loaded, or no `/proc`), where nothing can be told.
fn journals() -> Option<Vec<String>> {
    let entries = std::fs::read_dir("/proc/fs/jbd2").ok()?;
    Some(
        entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    )
}

/// The kernel's name of the device a mount names: `/dev/vda` is `vda`, and a link such as
/// `/dev/mapper/vg-root` is named after what it points to (`dm-0`), as `/proc/fs/jbd2` names it.
fn device_name(source: &str) -> String {
    let real = std::fs::canonicalize(source).ok();
    let path = real.as_deref().and_then(Path::to_str).unwrap_or(source);
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// Whether one of `journals` belongs to the device named `device` (`vda` has `vda-8`).
fn has_journal(journals: &[String], device: &str) -> bool {
    journals.iter().any(|j| {
        j.strip_prefix(device)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|inode| !inode.is_empty() && inode.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Whether a virtio balloon on this machine reports free pages to its host (feature bit 5,
/// `VIRTIO_BALLOON_F_REPORTING`, in `/sys/bus/virtio/drivers/virtio_balloon/*/features`).
fn free_page_reporting() -> bool {
    let Ok(devices) = std::fs::read_dir("/sys/bus/virtio/drivers/virtio_balloon") else {
        return false;
    };
    devices.flatten().any(|d| {
        std::fs::read_to_string(d.path().join("features")).is_ok_and(|f| reports_free_pages(&f))
    })
}

/// Whether a virtio `features` string (one `0`/`1` per feature bit, bit 0 first) has bit 5 set.
fn reports_free_pages(features: &str) -> bool {
    features.as_bytes().get(5) == Some(&b'1')
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
23 22 0:21 / /dev/shm rw,nosuid,nodev shared:2 - tmpfs tmpfs rw
24 22 7:0 / /mnt/my\\040disk rw,relatime shared:3 - ext4 /dev/loop0 rw
25 22 7:1 / /mnt/my rw,relatime shared:4 - xfs /dev/loop1 rw
";

    #[test]
    fn the_longest_mount_point_above_the_path_holds_it() {
        let at = |p: &str| mount_of(INFO, Path::new(p)).map(|m| (m.fs_type, m.source));
        let pair = |t: &str, s: &str| Some((t.to_string(), s.to_string()));
        assert_eq!(at("/work/bench/run-1"), pair("ext4", "/dev/vda"));
        assert_eq!(at("/dev/shm/b"), pair("tmpfs", "tmpfs"));
        assert_eq!(at("/mnt/my disk/out"), pair("ext4", "/dev/loop0"));
        assert_eq!(at("/mnt/my/out"), pair("xfs", "/dev/loop1"));
        // A mount point is a whole path component: /mnt/myx is on the root.
        assert_eq!(at("/mnt/myx"), pair("ext4", "/dev/vda"));
        assert_eq!(mount_of("garbage\n", Path::new("/")), None);
    }

    #[test]
    fn a_journal_is_matched_by_its_device_name() {
        let j = vec![
            "loop0-8".to_string(),
            "sda1-8".to_string(),
            "dm-0-8".to_string(),
        ];
        assert!(has_journal(&j, "loop0"));
        assert!(has_journal(&j, "sda1"));
        assert!(has_journal(&j, "dm-0"));
        assert!(!has_journal(&j, "vda"));
        assert!(!has_journal(&j, "loop"), "loop is not loop0");
        assert!(!has_journal(&j, "sda"), "sda is not sda1");
        assert!(!has_journal(&j, "dm"), "dm is not dm-0");
        // A device path that is not there (a container's view) is named by its last component.
        assert_eq!(device_name("/dev/no-such-disk7"), "no-such-disk7");
    }

    /// A link (as `/dev/mapper/vg-root` to `/dev/dm-0`) is named after what it points to.
    #[cfg(unix)]
    #[test]
    fn a_linked_device_is_named_after_its_target() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/bench-machine");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("dm-3"), "").expect("write");
        std::os::unix::fs::symlink(dir.join("dm-3"), dir.join("vg-root")).expect("symlink");
        let link = dir.join("vg-root");
        assert_eq!(device_name(link.to_str().expect("utf-8")), "dm-3");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn the_write_note_scales_the_probe_to_the_largest_output() {
        let c = WriteCost {
            new_ms_per_mib: 4.0,
            in_place_ms_per_mib: 0.25,
        };
        let later = WriteCost {
            new_ms_per_mib: 1.0,
            ..c
        };
        let note = write_note("100k", 500 << 20, c, later);
        assert!(
            note.contains("4.00 ms per MiB here before the renders and 1.00 after"),
            "{note}"
        );
        assert!(note.contains("in place 0.25 and 0.25"), "{note}");
        assert!(
            note.contains("524 MB of new files cost 2000 and 500 ms"),
            "{note}"
        );
        let all = notes(
            Path::new("/nonexistent"),
            Some(("100k", 500 << 20)),
            Some((c, later)),
        );
        assert_eq!(all.first(), Some(&note));
        assert!(!notes(Path::new("/nonexistent"), None, Some((c, later))).contains(&note));
    }

    #[test]
    fn free_page_reporting_is_feature_bit_five() {
        assert!(reports_free_pages("0110010100000000"));
        assert!(!reports_free_pages("0110000100000000"));
        assert!(!reports_free_pages("0110"));
        assert_eq!(unescape("a\\040b\\134c\\x"), "a b\\c\\x");
    }
}

//! What about the machine moves the bench's figures, said beside them: the two costs outside aifab
//! that README (Performance) measures apart. Linux only; elsewhere, and where `/proc` or `/sys` says
//! nothing, there is nothing to say.

use std::path::Path;

/// The notes for a bench whose renders wrote under `dir`, one sentence each.
pub fn notes(dir: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let read = |p: &str| std::fs::read_to_string(p).ok();
    if let (Some(info), Ok(dir)) = (read("/proc/self/mountinfo"), std::fs::canonicalize(dir))
        && let Some(m) = mount_of(&info, &dir)
        && m.fs_type == "ext4"
        && !has_journal(&journals(), &m.source)
    {
        notes.push(format!(
            "The renders wrote to ext4 without a journal ({} on {}): there every new file steps over each inode freed in the last 60-300 s, so a render soon after a large removal is slower (README, Performance).",
            m.source, m.mount_point
        ));
    }
    if free_page_reporting() {
        notes.push(
            "This is a virtual machine whose balloon reports freed memory to the host (virtio-balloon free page reporting): a render's first touch of such memory costs a fault in the host, and the figures can move by 2× from one run to the next (README, Performance).".to_string(),
        );
    }
    notes
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

/// The journals the kernel runs: the entries of `/proc/fs/jbd2`, each `<device>-<inode>`.
fn journals() -> Vec<String> {
    std::fs::read_dir("/proc/fs/jbd2")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether one of `journals` belongs to the device `source` (`/dev/vda` has `vda-8`).
fn has_journal(journals: &[String], source: &str) -> bool {
    let device = source.rsplit('/').next().unwrap_or(source);
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
        let j = vec!["loop0-8".to_string(), "sda1-8".to_string()];
        assert!(has_journal(&j, "/dev/loop0"));
        assert!(has_journal(&j, "/dev/sda1"));
        assert!(!has_journal(&j, "/dev/vda"));
        assert!(!has_journal(&j, "/dev/loop"), "loop is not loop0");
        assert!(!has_journal(&j, "/dev/sda"), "sda is not sda1");
    }

    #[test]
    fn free_page_reporting_is_feature_bit_five() {
        assert!(reports_free_pages("0110010100000000"));
        assert!(!reports_free_pages("0110000100000000"));
        assert!(!reports_free_pages("0110"));
        assert_eq!(unescape("a\\040b\\134c\\x"), "a b\\c\\x");
    }
}

//! Where the output's folders land on disk: spread over the file system.
//!
//! ext4 without a journal will not reuse an inode freed in the last minutes while another is free, and
//! finds that out by scanning: each new file in a block group where many files were just deleted (the
//! previous output after `rm -rf`) costs a scan past all of them, up to a whole group (8,192 inodes)
//! per file. ext4 puts a new folder beside its parent, and a file in its folder's group, so the whole
//! output would land in the group the deleted one just emptied. A 100K render right after removing its
//! previous output spent a third of its processor time in that scan, and took 2.5-4.0 s instead of 1.4.
//!
//! [`hint`] gives the folder being filled the top-directory flag (`chattr +T`): ext4 then spreads its
//! sub-folders (one per device) over the groups with the most free space, so each group takes the few
//! files of a few devices. What it cannot spread is one folder of thousands of files (the hosts'
//! netplan files): ext4 tends to pick the group just emptied for it.
//!
//! Any other file system ignores or refuses the flag, and the hint is best effort either way: it
//! changes where an inode is stored, never what a file holds or where it is in the output.

use std::path::Path;

/// Marks folder `dir` as a top directory for ext4's allocator (`FS_TOPDIR_FL`). Errors are ignored.
#[cfg(target_os = "linux")]
pub fn hint(dir: &Path) {
    use std::os::fd::AsRawFd as _;
    /// `FS_TOPDIR_FL` from linux/fs.h: "top of directory hierarchies".
    const TOPDIR: libc::c_int = 0x0002_0000;
    let Ok(folder) = std::fs::File::open(dir) else {
        return;
    };
    let fd = folder.as_raw_fd();
    let mut flags: libc::c_int = 0;
    // SAFETY: `fd` is an open descriptor for the call's duration; both ioctls read or write one `int`
    // (the kernel's size for these flags), which `flags` provides.
    unsafe {
        if libc::ioctl(fd, libc::FS_IOC_GETFLAGS, &mut flags) == 0 && flags & TOPDIR == 0 {
            flags |= TOPDIR;
            libc::ioctl(fd, libc::FS_IOC_SETFLAGS, &flags);
        }
    }
}

/// No such hint elsewhere.
#[cfg(not(target_os = "linux"))]
pub fn hint(_: &Path) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::fd::AsRawFd as _;

    fn flags(dir: &std::path::Path) -> Option<libc::c_int> {
        let folder = std::fs::File::open(dir).ok()?;
        let mut flags: libc::c_int = 0;
        // SAFETY: as in `hint`: an open descriptor and one `int` for the kernel to fill.
        let rc = unsafe { libc::ioctl(folder.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) };
        (rc == 0).then_some(flags)
    }

    fn on_ext4(dir: &std::path::Path) -> bool {
        use std::os::unix::ffi::OsStrExt as _;
        let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `path` is NUL-terminated and `fs` is a plain struct the call fills.
        let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::statfs(path.as_ptr(), &mut fs) };
        rc == 0 && fs.f_type as i64 == 0xEF53
    }

    #[test]
    fn an_ext4_folder_gets_the_top_directory_flag_and_others_are_left_alone() {
        let dir = std::env::temp_dir().join(format!("aifab-spread-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let before = flags(&dir);
        super::hint(&dir);
        let after = flags(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        if on_ext4(&std::env::temp_dir()) {
            assert_eq!(
                after.map(|f| f & 0x0002_0000),
                Some(0x0002_0000),
                "{before:?} -> {after:?}"
            );
        } else {
            // Elsewhere nothing may break: the folder is still there and usable, its flags as before
            // unless the file system took the hint.
            assert!(after == before || after.is_some_and(|f| f & 0x0002_0000 != 0));
        }
    }
}

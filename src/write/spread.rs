//! Where the output's folders land on disk after the previous output was deleted.
//!
//! ext4 without a journal will not reuse an inode freed in the last minutes (six, when the inode table
//! was not yet written back) while another is free, and finds that out by scanning: each new file in a
//! block group where many files were just deleted costs a scan past all of them, up to a whole group
//! (8,192 inodes) per file. ext4 puts a new folder beside its parent and a file in its folder's group,
//! so after `rm -rf out` the next render's files all land in the groups the deleted output just
//! emptied. A 100K render right after removing its previous output spent a third of its processor time
//! in that scan and took 2.5-4.0 s instead of 1.4-1.9.
//!
//! [`hint`] gives the folder being filled the top-directory flag (`chattr +T`): ext4 then spreads its
//! sub-folders (one per device) over the groups with the most free space, so each group takes the few
//! files of a few devices. Spreading has its own price, which is why the writer asks for it only when
//! the output folder is missing although aifab indexed it before (it was deleted): placing each folder
//! scans every group's counters (about 150 µs per folder on a 250 GB disk, 0.25 s of processor time for
//! the 100K fabric's 1,570 folders). What it cannot spread is one folder of thousands of files (the
//! hosts' netplan files): ext4 picks the group just emptied for it.
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

//! The twin's lab on this machine: a network namespace per switch, a veth pair per fabric link, a
//! veth pair inside the switch per routed server port (and the server VLAN's gateway), one zebra and
//! one bgpd per switch from Debian's `frr`, each reading the switch's rendered `frr.conf`, and one
//! Debian `lldpd` per switch (its control socket and pid file in the switch's folder).
//!
//! Everything the lab makes is named `aifab-twin-<pid>-<lab>-<n>` (namespaces, FRR's path space under
//! `/var/run/frr/`) and removed by [`Lab`]'s `Drop`: on success, on error, on a panic, and on SIGINT or
//! SIGTERM (the handler only raises [`interrupted`]; the run stops and unwinds). A reaper process
//! (`aifab twin --reap <prefix>`, in its own session) waits for this process to end however it ends,
//! `kill -9` included, and removes what is left; a later run also removes the remains of runs whose
//! process is gone.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Where FRR's daemons and vtysh live (Debian's `frr` package).
pub const FRR_DIR: &str = "/usr/lib/frr";
/// Debian's `lldpd` (package `lldpd`, 1.0.x).
pub const LLDPD: &str = "/usr/sbin/lldpd";
/// FRR's state folder: each lab switch's path space is a folder in it.
const RUN_DIR: &str = "/var/run/frr";
/// Every name the twin gives starts so.
pub const PREFIX: &str = "aifab-twin-";

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Labs this process made: a second lab of the same process (a test) gets its own names.
static LABS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Why the lab could not be built or asked something: what this machine lacks, or the command that
/// failed (with the switch's namespace where it ran in one) and what it printed.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// Not root: no CAP_NET_ADMIN and CAP_SYS_ADMIN.
    #[error(
        "aifab twin needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN): it creates network namespaces, veth pairs and FRR daemons; run it as root (sudo aifab twin ...)"
    )]
    NotRoot,
    /// One of FRR's daemons is not in [`FRR_DIR`].
    #[error(
        "aifab twin needs FRR's {daemon} in {FRR_DIR}: apt-get install -y frr (Debian's package; its service need not run)"
    )]
    NoFrr {
        /// `zebra` or `bgpd`.
        daemon: &'static str,
    },
    /// lldpd is not at [`LLDPD`].
    #[error(
        "aifab twin needs Debian's lldpd ({LLDPD}): apt-get install -y lldpd (its service need not run)"
    )]
    NoLldpd,
    /// A tool is not on `PATH`.
    #[error("aifab twin needs `{tool}` on PATH (Debian: iproute2, frr, lldpd)")]
    NotOnPath {
        /// The tool.
        tool: &'static str,
    },
    /// A file or folder of a switch's path space could not be written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A daemon's log could not be handed to it a second time (as its stderr).
    #[error("{error}")]
    Log {
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A daemon could not be started.
    #[error("start {daemon} in {ns}: {error}")]
    Start {
        /// The daemon.
        daemon: &'static str,
        /// The switch's namespace.
        ns: String,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A tool could not be run (or fed, or waited for).
    #[error("{tool}: {error}")]
    Run {
        /// The tool.
        tool: String,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A tool ran and failed: the command, the namespace it ran in (if one) and its stderr.
    #[error("{command}{}: {stderr}", ns.as_ref().map(|n| format!(" in {n}")).unwrap_or_default())]
    Failed {
        /// The command line, as a person would type it.
        command: String,
        /// The switch's namespace it ran in, when it names one.
        ns: Option<String>,
        /// What it printed on stderr, trimmed.
        stderr: String,
    },
}

impl LabError {
    /// The tool `tool` could not be run.
    fn run(tool: &str) -> impl FnOnce(std::io::Error) -> LabError + '_ {
        move |error| LabError::Run {
            tool: tool.to_string(),
            error,
        }
    }

    /// The file or folder `path` could not be written.
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
        move |error| LabError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// `command` failed (in `ns`), printing `stderr`.
    fn failed(command: String, ns: Option<&str>, stderr: &[u8]) -> LabError {
        LabError::Failed {
            command,
            ns: ns.map(str::to_string),
            stderr: String::from_utf8_lossy(stderr).trim().to_string(),
        }
    }
}

/// True once SIGINT or SIGTERM arrived: the run stops at its next step and cleans up.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Makes SIGINT and SIGTERM raise [`interrupted`] instead of ending the process, so the lab is
/// removed before it exits.
pub fn catch_signals() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// Sleeps `d` in short steps; false when interrupted.
pub fn nap(d: Duration) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if interrupted() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20).min(end - Instant::now()));
    }
    !interrupted()
}

/// What the lab needs of this machine, or what is missing: root's network and mount capabilities,
/// FRR's daemons and lldpd.
pub fn preflight() -> Result<(), LabError> {
    let caps = effective_caps();
    const NET_ADMIN: u64 = 1 << 12;
    const SYS_ADMIN: u64 = 1 << 21;
    if caps & (NET_ADMIN | SYS_ADMIN) != NET_ADMIN | SYS_ADMIN {
        return Err(LabError::NotRoot);
    }
    for daemon in ["zebra", "bgpd"] {
        if !Path::new(FRR_DIR).join(daemon).is_file() {
            return Err(LabError::NoFrr { daemon });
        }
    }
    if !Path::new(LLDPD).is_file() {
        return Err(LabError::NoLldpd);
    }
    for tool in ["ip", "vtysh", "lldpctl", "lldpcli"] {
        if which(tool).is_none() {
            return Err(LabError::NotOnPath { tool });
        }
    }
    Ok(())
}

/// The effective capability set of this process (`CapEff` in /proc/self/status).
fn effective_caps() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .unwrap_or(0)
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(tool))
            .find(|f| f.is_file())
    })
}

/// One switch of the lab.
pub struct Switch {
    /// Namespace and FRR path space name.
    pub ns: String,
    /// The daemons, by name: zebra, bgpd, lldpd.
    daemons: Vec<(&'static str, Child)>,
}

/// The namespaces and daemons of one run; removed when dropped.
pub struct Lab {
    /// `aifab-twin-<pid>-<lab>-`: every name of this run starts so.
    pub prefix: String,
    /// The switches, in model order.
    pub switches: Vec<Switch>,
    reaper: Option<Child>,
}

impl Lab {
    /// An empty lab, with the reaper started and the remains of dead runs removed.
    pub fn new() -> Lab {
        remove_stale();
        let k = LABS.fetch_add(1, Ordering::Relaxed);
        let prefix = format!("{PREFIX}{}-{k}-", std::process::id());
        let reaper = start_reaper(&prefix);
        Lab {
            prefix,
            switches: Vec::new(),
            reaper,
        }
    }

    /// Adds switch `n`'s namespace with `lo` up.
    pub fn add_switch(&mut self) -> Result<usize, LabError> {
        let i = self.switches.len();
        let ns = format!("{}{i}", self.prefix);
        self.switches.push(Switch {
            ns: ns.clone(),
            daemons: Vec::new(),
        });
        ip(&["netns", "add", &ns])?;
        ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        Ok(i)
    }

    /// Runs `ip -batch` with `lines` in switch `i`'s namespace (`None`: the root namespace).
    pub fn batch(&self, i: Option<usize>, lines: &str) -> Result<(), LabError> {
        let mut args: Vec<&str> = Vec::new();
        if let Some(i) = i {
            args.extend(["-n", &self.switches[i].ns]);
        }
        args.extend(["-batch", "-"]);
        run_with_input("ip", &args, lines)
    }

    /// The folder of switch `i`'s FRR path space (its vty sockets, config, logs).
    pub fn dir(&self, i: usize) -> PathBuf {
        Path::new(RUN_DIR).join(&self.switches[i].ns)
    }

    /// Starts zebra and bgpd of switch `i` on `config` (an integrated `frr.conf`: each daemon reads its
    /// own sections), in the foreground as children of this process.
    pub fn start_frr(&mut self, i: usize, config: &str) -> Result<(), LabError> {
        let dir = self.dir(i);
        std::fs::create_dir_all(&dir).map_err(LabError::io(&dir))?;
        let conf = dir.join("frr.conf");
        std::fs::write(&conf, config).map_err(LabError::io(&conf))?;
        chown_frr(&dir)?;
        chown_frr(&conf)?;
        let ns = self.switches[i].ns.clone();
        for daemon in ["zebra", "bgpd"] {
            let log = std::fs::File::create(dir.join(format!("{daemon}.out")))
                .map_err(LabError::io(&dir))?;
            let err = log.try_clone().map_err(|error| LabError::Log { error })?;
            let child = Command::new("ip")
                .args(["netns", "exec", &ns])
                .arg(Path::new(FRR_DIR).join(daemon))
                .args(["-N", &ns, "-f"])
                .arg(&conf)
                .arg("-i")
                .arg(dir.join(format!("{daemon}.pid")))
                .arg("--log")
                .arg(format!(
                    "file:{}",
                    dir.join(format!("{daemon}.log")).display()
                ))
                .stdin(Stdio::null())
                .stdout(log)
                .stderr(err)
                .spawn()
                .map_err(|error| LabError::Start {
                    daemon,
                    ns: ns.clone(),
                    error,
                })?;
            self.switches[i].daemons.push((daemon, child));
            if daemon == "zebra" {
                // bgpd connects to zebra's socket; it retries, but starting it first saves a round.
                wait_for(&dir.join("zserv.api"), Duration::from_secs(5));
            }
        }
        Ok(())
    }

    /// Starts switch `i`'s lldpd in the foreground, as a child of this process, on the ports named
    /// `swp*`, with `config` (`lldpcli` commands) as its only configuration: lldpd stays paused until
    /// its `lldpcli` has run them, so its first frame already carries the port IDs they set. Its
    /// control socket and pid file are in the switch's folder (lldpd writes the pid file only when it
    /// daemonizes; naming it keeps it off the system's `/run/lldpd.pid` all the same).
    pub fn start_lldpd(&mut self, i: usize, config: &str) -> Result<(), LabError> {
        let dir = self.dir(i);
        std::fs::create_dir_all(&dir).map_err(LabError::io(&dir))?;
        let conf = dir.join("lldpd.conf");
        std::fs::write(&conf, config).map_err(LabError::io(&conf))?;
        let log = std::fs::File::create(dir.join("lldpd.out")).map_err(LabError::io(&dir))?;
        let err = log.try_clone().map_err(|error| LabError::Log { error })?;
        let ns = self.switches[i].ns.clone();
        let child = Command::new("ip")
            .args(["netns", "exec", &ns, LLDPD, "-d", "-d", "-I", "swp*", "-u"])
            .arg(self.lldpd_socket(i))
            .arg("-p")
            .arg(dir.join("lldpd.pid"))
            .arg("-O")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .spawn()
            .map_err(|error| LabError::Start {
                daemon: "lldpd",
                ns: ns.clone(),
                error,
            })?;
        self.switches[i].daemons.push(("lldpd", child));
        Ok(())
    }

    /// The control socket of switch `i`'s lldpd.
    pub fn lldpd_socket(&self, i: usize) -> PathBuf {
        self.dir(i).join("lldpd.socket")
    }

    /// Runs `tool` (`lldpctl` or `lldpcli`) against switch `i`'s lldpd with `args`; its output.
    pub fn lldp_tool(&self, i: usize, tool: &str, args: &[&str]) -> Result<String, LabError> {
        let out = Command::new(tool)
            .arg("-u")
            .arg(self.lldpd_socket(i))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(LabError::run(tool))?;
        if !out.status.success() {
            let command = format!("{tool} {}", args.join(" "));
            return Err(LabError::failed(
                command,
                Some(&self.switches[i].ns),
                &out.stderr,
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs vtysh against switch `i` and returns its output.
    pub fn vtysh(&self, i: usize, command: &str) -> Result<String, LabError> {
        let out = Command::new("vtysh")
            .arg("--vty_socket")
            .arg(self.dir(i))
            .args(["-c", command])
            .stdin(Stdio::null())
            .output()
            .map_err(LabError::run("vtysh"))?;
        if !out.status.success() {
            return Err(LabError::failed(
                format!("vtysh -c '{command}'"),
                Some(&self.switches[i].ns),
                &out.stderr,
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs `ip` with `args` in switch `i`'s namespace and returns its output.
    pub fn ip_in(&self, i: usize, args: &[&str]) -> Result<String, LabError> {
        let mut all = vec!["-n", self.switches[i].ns.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }

    /// The pids of every daemon still running and of their own children (lldpd's unprivileged half).
    pub fn daemon_pids(&self) -> Vec<u32> {
        self.switches
            .iter()
            .flat_map(|s| s.daemons.iter().map(|(_, c)| c.id()))
            .flat_map(|pid| std::iter::once(pid).chain(children(pid)))
            .collect()
    }

    /// A daemon that has exited, with its switch: the lab is broken.
    pub fn dead_daemon(&mut self) -> Option<(usize, String)> {
        for (i, s) in self.switches.iter_mut().enumerate() {
            for (name, d) in &mut s.daemons {
                if let Ok(Some(status)) = d.try_wait() {
                    return Some((i, format!("{name} exited ({status})")));
                }
            }
        }
        None
    }

    /// Stops every daemon and removes every namespace and folder of this run.
    fn teardown(&mut self) {
        for s in &mut self.switches {
            for (_, d) in &mut s.daemons {
                // SAFETY: kill(2) on the pid of a child this process has not reaped yet.
                unsafe {
                    libc::kill(d.id() as libc::pid_t, libc::SIGTERM);
                }
            }
        }
        let end = Instant::now() + Duration::from_secs(3);
        for s in &mut self.switches {
            for (_, d) in &mut s.daemons {
                while Instant::now() < end && matches!(d.try_wait(), Ok(None)) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                let _ = d.kill();
                let _ = d.wait();
            }
            s.daemons.clear();
        }
        remove_prefix(&self.prefix);
        self.switches.clear();
    }
}

impl Default for Lab {
    fn default() -> Lab {
        Lab::new()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        self.teardown();
        if let Some(mut r) = self.reaper.take() {
            // Closing its stdin tells it this process is done; it finds nothing left and exits.
            drop(r.stdin.take());
            let _ = r.wait();
        }
    }
}

/// Starts `aifab twin --reap <prefix>` in its own session, its stdin a pipe from this process: when
/// the pipe closes (this process ended, however), it removes what the run left.
fn start_reaper(prefix: &str) -> Option<Child> {
    use std::os::unix::process::CommandExt as _;
    let exe = std::env::current_exe().ok()?;
    let mut cmd = Command::new(exe);
    cmd.args(["twin", "--reap", prefix])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid() is async-signal-safe; it moves the reaper out of the terminal's process group,
    // so a Ctrl-C meant for the twin does not end it too.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    cmd.spawn().ok()
}

/// The reaper's body: waits until stdin closes, then removes everything named with `prefix`.
pub fn reap(prefix: &str) {
    // SAFETY: ignoring signals changes this process's dispositions only.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
    let mut sink = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
    if prefix.starts_with(PREFIX) && prefix.len() > PREFIX.len() {
        remove_prefix(prefix);
    }
}

/// Removes the namespaces (killing what runs in them) and FRR folders whose names start with `prefix`.
fn remove_prefix(prefix: &str) {
    for ns in namespaces().into_iter().filter(|n| n.starts_with(prefix)) {
        kill_in(&ns);
        let _ = ip(&["netns", "del", &ns]);
    }
    if let Ok(rd) = std::fs::read_dir(RUN_DIR) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(prefix) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// Removes the remains of twin runs whose process no longer exists (`aifab-twin-<pid>-...`).
fn remove_stale() {
    let mut dead: Vec<String> = Vec::new();
    let names = namespaces().into_iter().chain(
        std::fs::read_dir(RUN_DIR)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned()),
    );
    for name in names {
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let p = format!("{PREFIX}{pid}-");
            if !dead.contains(&p) {
                dead.push(p);
            }
        }
    }
    for p in dead {
        remove_prefix(&p);
    }
}

/// The network namespaces `ip netns` lists.
fn namespaces() -> Vec<String> {
    ip(&["netns", "list"])
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Kills every process in namespace `ns` (the daemons of a run that could not stop them).
fn kill_in(ns: &str) {
    for pid in ip(&["netns", "pids", ns]).unwrap_or_default().lines() {
        if let Ok(pid) = pid.trim().parse::<libc::pid_t>() {
            // SAFETY: kill(2) of a process that runs in a namespace this run created.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// Runs `ip` with `args`; its stdout, or its stderr as the error.
pub fn ip(args: &[&str]) -> Result<String, LabError> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(LabError::run("ip"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let command = format!("ip {}", args.join(" "));
        Err(LabError::failed(command, None, &out.stderr))
    }
}

/// Runs `tool` with `args` and `input` on its stdin; its stderr as the error when it fails.
fn run_with_input(tool: &str, args: &[&str], input: &str) -> Result<(), LabError> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(LabError::run(tool))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .map_err(LabError::run(tool))?;
    }
    let out = child.wait_with_output().map_err(LabError::run(tool))?;
    if out.status.success() {
        Ok(())
    } else {
        let command = format!("{tool} {}", args.join(" "));
        Err(LabError::failed(command, None, &out.stderr))
    }
}

/// Gives `path` to the `frr` user, as FRR's daemons drop root and write there.
fn chown_frr(path: &Path) -> Result<(), LabError> {
    let out = Command::new("chown")
        .args(["frr:frr"])
        .arg(path)
        .output()
        .map_err(LabError::run("chown"))?;
    if out.status.success() {
        Ok(())
    } else {
        let command = format!("chown frr:frr {}", path.display());
        Err(LabError::failed(command, None, &out.stderr))
    }
}

fn wait_for(path: &Path, limit: Duration) {
    let end = Instant::now() + limit;
    while !path.exists() && Instant::now() < end && !interrupted() {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The children of process `pid` (`/proc/<pid>/task/<pid>/children`).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Resident memory of `pid` in KiB (`VmRSS`), 0 when it is gone.
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// `MemAvailable` of this machine in KiB.
pub fn mem_available_kib() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

//! What this machine offers: CPUs, memory, boot time, OS. Read from /proc and uname; slurm.conf's node line wins
//! where it says more (the controller schedules on configured values, as Slurm does).

use spur_core::model::job::EpochSecs;

#[derive(Debug, Clone, PartialEq)]
pub struct MachineFacts {
    pub cpus: u32,
    pub real_memory_mb: u64,
    pub boot_time: EpochSecs,
    pub os: String,
    pub arch: String,
    pub hostname: String,
}

pub fn discover() -> MachineFacts {
    let cpus = std::thread::available_parallelism()
        .map(|n| u32::try_from(n.get()).unwrap_or(1))
        .unwrap_or(1);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let uname = nix::sys::utsname::uname().ok();
    let field = |f: fn(&nix::sys::utsname::UtsName) -> &std::ffi::OsStr| {
        uname
            .as_ref()
            .map(|u| f(u).to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    MachineFacts {
        cpus,
        real_memory_mb: meminfo_kb(&meminfo, "MemTotal:")
            .map(|kb| kb / 1024)
            .unwrap_or(0),
        boot_time: boot_time(&stat).unwrap_or(0),
        os: format!(
            "{} {} {}",
            field(|u| u.sysname()),
            field(|u| u.release()),
            field(|u| u.version())
        ),
        arch: field(|u| u.machine()),
        hostname: short_hostname(),
    }
}

/// The short host name (up to the first dot), which Slurm uses as the default node name.
pub fn short_hostname() -> String {
    nix::unistd::gethostname()
        .ok()
        .map(|h| {
            h.to_string_lossy()
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_else(|| "localhost".to_string())
}

pub fn free_memory_mb() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_kb(&meminfo, "MemAvailable:").map(|kb| kb / 1024)
}

pub fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn meminfo_kb(meminfo: &str, key: &str) -> Option<u64> {
    meminfo
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn boot_time(stat: &str) -> Option<EpochSecs> {
    stat.lines()
        .find(|l| l.starts_with("btime "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_meminfo_and_btime() {
        let meminfo =
            "MemTotal:       24159472 kB\nMemFree:        1 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(meminfo_kb(meminfo, "MemTotal:"), Some(24_159_472));
        assert_eq!(meminfo_kb(meminfo, "MemAvailable:"), Some(2048));
        assert_eq!(
            boot_time("cpu 1 2\nbtime 1764500000\n"),
            Some(1_764_500_000)
        );
        assert_eq!(boot_time("cpu 1 2\n"), None);
    }

    #[test]
    fn discovers_this_machine() {
        let facts = discover();
        assert!(facts.cpus >= 1);
        assert!(facts.real_memory_mb > 0);
        assert!(!facts.hostname.is_empty());
    }
}

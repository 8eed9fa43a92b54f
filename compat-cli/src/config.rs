//! What the CLI needs to know about the cluster: the controller's address (SPUR_CONTROLLER, else slurm.conf's
//! SlurmctldHost and SlurmctldPort), GRES names, and local facts such as user names and the time zone.

use std::collections::BTreeSet;
use std::path::PathBuf;

use spur_core::grammar::conf::SlurmConf;

/// slurm.conf as Slurm's clients find it: `SLURM_CONF`, else the default path.
pub fn slurm_conf_path() -> PathBuf {
    std::env::var_os("SLURM_CONF")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/etc/slurm/slurm.conf"))
}

/// slurm.conf, read and parsed once per command (sbatch alone asks for several of its values).
pub fn load_slurm_conf() -> Option<&'static SlurmConf> {
    static CONF: std::sync::OnceLock<Option<SlurmConf>> = std::sync::OnceLock::new();
    CONF.get_or_init(|| {
        let mut read = |p: &str| std::fs::read_to_string(p).map_err(|e| e.to_string());
        SlurmConf::load(&slurm_conf_path().display().to_string(), &mut read).ok()
    })
    .as_ref()
}

/// Every controller, in the order to try them (see `spur_core::grammar::conf::controller_urls`).
pub fn controller_urls() -> Vec<String> {
    let from_env = std::env::var("SPUR_CONTROLLER").ok();
    spur_core::grammar::conf::controller_urls(from_env.as_deref(), load_slurm_conf())
}

/// The GRES names the cluster tracks (`GresTypes`), which `--gres` may name.
pub fn gres_types() -> Vec<String> {
    load_slurm_conf()
        .map(|conf| conf.gres_types().into_iter().map(str::to_string).collect())
        .unwrap_or_default()
}

/// `MaxArraySize` (Slurm's default 1001 without a slurm.conf).
pub fn max_array_size() -> u32 {
    load_slurm_conf().map_or(1001, |conf| conf.max_array_size())
}

/// This process's session id (`AllocNode:Sid=host:sid`).
pub fn session_id() -> u32 {
    nix::unistd::getsid(None)
        .ok()
        .and_then(|p| u32::try_from(p.as_raw()).ok())
        .unwrap_or(0)
}

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

pub use spur_auth::names::{group_name, user_name};

/// A user given by name or number, as `-u` takes it.
pub fn uid_of(user: &str) -> Option<u32> {
    if let Ok(uid) = user.parse() {
        return Some(uid);
    }
    nix::unistd::User::from_name(user)
        .ok()
        .flatten()
        .map(|u| u.uid.as_raw())
}

/// Local time minus UTC now, for printing times as Slurm does (local time).
pub fn utc_offset_secs() -> i32 {
    let now = now_epoch();
    let t = libc::time_t::try_from(now).unwrap_or(0);
    // SAFETY: localtime_r writes into the zeroed struct we own; tm_gmtoff is plain data.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return 0;
        }
        i32::try_from(tm.tm_gmtoff).unwrap_or(0)
    }
}

pub fn now_epoch() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0)
}

/// A formatting context with the names of every user and group the records mention.
pub fn format_context(
    now: i64,
    ids: impl Iterator<Item = (u32, u32)>,
) -> spur_core::format::FormatContext {
    let mut ctx = spur_core::format::FormatContext::new(now, utc_offset_secs());
    // A value Slurm refuses keeps the standard format (Slurm also prints an error the first time it formats one).
    let time_format = std::env::var("SLURM_TIME_FORMAT").ok();
    if let Ok(format) = spur_core::format::time_format::TimeFormat::from_env(time_format.as_deref())
    {
        ctx = ctx.with_time_format(format);
    }
    if let Some(conf) = load_slurm_conf() {
        if let Some(name) = conf.cluster_name() {
            ctx = ctx.with_cluster(name);
        }
    }
    // A big queue names the same few users over and over: each id is looked up once.
    let (uids, gids): (BTreeSet<u32>, BTreeSet<u32>) = ids.unzip();
    for uid in uids {
        if let Some(name) = user_name(uid) {
            ctx = ctx.with_user(uid, &name);
        }
    }
    for gid in gids {
        if let Some(name) = group_name(gid) {
            ctx = ctx.with_group(gid, &name);
        }
    }
    ctx
}

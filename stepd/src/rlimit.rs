//! Slurm's resource limit names (`spur_core::grammar::rlimits::NAMES`) as the kernel's resources.

use nix::sys::resource::Resource;

pub fn resource(name: &str) -> Option<Resource> {
    Some(match name {
        "AS" => Resource::RLIMIT_AS,
        "CORE" => Resource::RLIMIT_CORE,
        "CPU" => Resource::RLIMIT_CPU,
        "DATA" => Resource::RLIMIT_DATA,
        "FSIZE" => Resource::RLIMIT_FSIZE,
        "MEMLOCK" => Resource::RLIMIT_MEMLOCK,
        "NOFILE" => Resource::RLIMIT_NOFILE,
        "NPROC" => Resource::RLIMIT_NPROC,
        "RSS" => Resource::RLIMIT_RSS,
        "STACK" => Resource::RLIMIT_STACK,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_slurm_name_has_a_resource() {
        for name in spur_core::grammar::rlimits::NAMES {
            assert!(super::resource(name).is_some(), "{name}");
        }
        assert!(super::resource("BOGUS").is_none());
    }
}

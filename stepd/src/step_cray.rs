//! `--mpi=cray_shasta` on one node (docs/mpi.md), as Slurm 22.05's mpi/cray_shasta: before the tasks start, the
//! step's application directory `<SlurmdSpoolDir>/mpi_cray_shasta/<job>.<step>` (owner the job's user, mode 0700)
//! holding the PALS `apinfo` file ([`spur_core::model::pals_apinfo`]); each task gets `PALS_*` variables naming
//! them, and `PMI_CONTROL_PORT` (the first of the step's reserved ports) when the step has reserved ports. The
//! directory is removed when the step ends. No server: Cray MPICH reads the file and wires up by itself.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use spur_core::model::pals_apinfo;
use spur_core::model::step_launch::NodeStepLaunch;

/// The directory under the spool holding every step's application directory (Slurm's `MPI_CRAY_DIR`).
const MPI_CRAY_DIR: &str = "mpi_cray_shasta";

/// The step's PALS files on this node.
pub struct CrayStep {
    app_dir: PathBuf,
    apinfo: PathBuf,
    apid: String,
    node_id: u32,
    control_port: Option<u16>,
}

impl CrayStep {
    /// Writes the application directory and file under `spool` (this node's SlurmdSpoolDir) for the step whose
    /// nodes (host list) and PMI process mapping srun passed. Fails, and with it the node's tasks, as Slurm's
    /// plugin fails the launch, when either cannot be written.
    pub fn setup(
        launch: &NodeStepLaunch,
        spool: &Path,
        nodes: &str,
        mapping: &str,
        size: u32,
    ) -> Result<CrayStep, String> {
        let names = spur_core::grammar::hostlist::expand(nodes)
            .map_err(|e| format!("mpi/cray_shasta: bad step node list {nodes:?}: {e}"))?;
        let mut ranks = crate::step_pmix::ranks_by_node(mapping, names.len(), size)
            .map_err(|e| e.replace("mpi/pmix", "mpi/cray_shasta"))?;
        // This node's own list is authoritative (its order is the local index order).
        if let Some(own) = ranks.get_mut(launch.tasks.node_id as usize) {
            own.clone_from(&launch.tasks.ranks);
        }
        let cpus_per_task = lookup(&launch.tasks.env, "SLURM_CPUS_PER_TASK")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        let bytes = pals_apinfo::encode(&pals_apinfo::Step {
            nodes: &names,
            node_ranks: &ranks,
            cpus_per_task,
        })
        .map_err(|e| format!("mpi/cray_shasta: {e}"))?;

        let cray_dir = spool.join(MPI_CRAY_DIR);
        make_dir(&cray_dir, 0o755)?;
        let app_dir = cray_dir.join(format!("{}.{}", launch.job_id, launch.step_id));
        make_dir(&app_dir, 0o700)?;
        // From here on a failure removes the directory again, as Slurm's plugin does.
        let apinfo = app_dir.join("apinfo");
        let written = chown(&app_dir, launch.uid, launch.gid)
            .and_then(|()| write_apinfo(&apinfo, &bytes, launch.uid, launch.gid));
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&app_dir);
            return Err(e);
        }
        let control_port = lookup(&launch.tasks.env, "SLURM_STEP_RESV_PORTS").and_then(first_port);
        Ok(CrayStep {
            app_dir,
            apinfo,
            apid: format!("{}.{}", launch.job_id, launch.step_id),
            node_id: launch.tasks.node_id,
            control_port,
        })
    }

    /// The variables of the task with step rank `rank`.
    pub fn task_env(&self, rank: u32) -> Vec<(String, String)> {
        let mut env = vec![
            ("PALS_APID".to_string(), self.apid.clone()),
            ("PALS_RANKID".to_string(), rank.to_string()),
            ("PALS_NODEID".to_string(), self.node_id.to_string()),
            (
                "PALS_SPOOL_DIR".to_string(),
                self.app_dir.to_string_lossy().into_owned(),
            ),
            (
                "PALS_APINFO".to_string(),
                self.apinfo.to_string_lossy().into_owned(),
            ),
        ];
        if let Some(port) = self.control_port {
            env.push(("PMI_CONTROL_PORT".to_string(), port.to_string()));
        }
        env
    }

    /// Removes the application directory and what the tasks left in it.
    pub fn finish(&self) {
        if let Err(e) = std::fs::remove_dir_all(&self.app_dir) {
            eprintln!(
                "spurstepd --step: mpi/cray_shasta: can't remove directory {}: {e}",
                self.app_dir.display()
            );
        }
    }
}

/// The first port of a reserved port list (`12000-12003`, `12000,12005`), as Slurm's plugin takes it: a number
/// that ends the value or is followed by `-` or `,`; anything else gives none.
pub fn first_port(ports: &str) -> Option<u16> {
    let end = ports
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(ports.len());
    let rest = &ports[end..];
    if !(rest.is_empty() || rest.starts_with('-') || rest.starts_with(',')) {
        return None;
    }
    ports[..end].parse().ok()
}

/// Makes `dir` with `mode` (an existing directory is taken as it is, as Slurm's plugin does: the spool belongs to
/// the supervisor's user, root, so nobody else can have put one there).
fn make_dir(dir: &Path, mode: u32) -> Result<(), String> {
    match DirBuilder::new().mode(mode).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(format!(
            "mpi/cray_shasta: Couldn't create directory {}: {e}",
            dir.display()
        )),
    }
}

fn chown(path: &Path, uid: u32, gid: u32) -> Result<(), String> {
    match nix::unistd::chown(path, Some(uid.into()), Some(gid.into())) {
        Ok(()) => Ok(()),
        // An unprivileged supervisor (tests) keeps its own files.
        Err(_) if !nix::unistd::geteuid().is_root() => Ok(()),
        Err(e) => Err(format!(
            "mpi/cray_shasta: Couldn't change directory {} owner: {e}",
            path.display()
        )),
    }
}

/// The file, mode 0600, owner the job's user, synced to disk.
fn write_apinfo(path: &Path, bytes: &[u8], uid: u32, gid: u32) -> Result<(), String> {
    let fail = |e: std::io::Error| {
        format!(
            "mpi/cray_shasta: Couldn't write apinfo file {}: {e}",
            path.display()
        )
    };
    let mut file: File = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(fail)?;
    chown(path, uid, gid)?;
    file.write_all(bytes).map_err(fail)?;
    file.sync_all().map_err(fail)
}

fn lookup<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
    env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::step_launch::NodeTasks;

    fn launch(node_id: u32, ranks: Vec<u32>, env: &[(&str, &str)]) -> NodeStepLaunch {
        NodeStepLaunch {
            job_id: 7,
            step_id: 2,
            uid: nix::unistd::getuid().as_raw(),
            gid: nix::unistd::getgid().as_raw(),
            argv: vec!["true".into()],
            work_dir: "/".into(),
            io_addr: String::new(),
            io_key: String::new(),
            kill_wait_secs: 0,
            pty: false,
            cpu_bind: None,
            gpu_bind: None,
            mem_per_node_mb: None,
            mpi: spur_core::model::mpi::MpiType::CrayShasta,
            task_prolog: None,
            task_epilog: None,
            tasks: NodeTasks {
                node: "n2".into(),
                node_id,
                ranks,
                env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                argv: Vec::new(),
                mem_mb: None,
            },
        }
    }

    #[test]
    fn the_step_gets_its_directory_file_and_variables_and_loses_them_at_the_end() {
        let spool = tempfile::tempdir().unwrap();
        let l = launch(1, vec![2, 3], &[("SLURM_STEP_RESV_PORTS", "12000-12002")]);
        let step =
            CrayStep::setup(&l, spool.path(), "n[1-3]", "(vector,(0,2,2),(2,1,1))", 5).unwrap();
        let dir = spool.path().join("mpi_cray_shasta/7.2");
        let file = dir.join("apinfo");
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(bytes.len(), 412);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o7777,
            0o700
        );
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777,
            0o600
        );
        let env = step.task_env(3);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("PALS_APID").as_deref(), Some("7.2"));
        assert_eq!(get("PALS_RANKID").as_deref(), Some("3"));
        assert_eq!(get("PALS_NODEID").as_deref(), Some("1"));
        assert_eq!(
            get("PALS_APINFO"),
            Some(file.to_string_lossy().into_owned())
        );
        assert_eq!(
            get("PALS_SPOOL_DIR"),
            Some(dir.to_string_lossy().into_owned())
        );
        assert_eq!(get("PMI_CONTROL_PORT").as_deref(), Some("12000"));
        step.finish();
        assert!(!dir.exists() && spool.path().join("mpi_cray_shasta").is_dir());
    }

    #[test]
    fn a_link_planted_as_the_file_is_not_followed() {
        let spool = tempfile::tempdir().unwrap();
        let dir = spool.path().join("mpi_cray_shasta/7.2");
        std::fs::create_dir_all(&dir).unwrap();
        let target = spool.path().join("victim");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("apinfo")).unwrap();
        let l = launch(0, vec![0], &[]);
        assert!(CrayStep::setup(&l, spool.path(), "n1", "(vector,(0,1,1))", 1).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert!(!dir.exists());
    }

    #[test]
    fn reserved_ports_give_the_first_as_slurm_parses_it() {
        assert_eq!(first_port("12000-12003"), Some(12000));
        assert_eq!(first_port("12000,12005"), Some(12000));
        assert_eq!(first_port("12000"), Some(12000));
        assert_eq!(first_port("12000x"), None);
        assert_eq!(first_port("70000"), None);
        assert_eq!(first_port(""), None);
    }
}

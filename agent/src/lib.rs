//! spurd: Spur's node agent. It registers the node with the controller, starts one spurstepd per job, forwards
//! signals and terminations to them, and reports their results. Its only state is the spool directory, so it can
//! be restarted at any time without disturbing running jobs.

pub mod config;
pub mod controller_trust;
pub mod discover;
pub mod gpus;
pub mod in_flight;
pub mod isolation;
pub mod jobs;
pub mod login_env;
pub mod runs;
pub mod session;
pub mod sim;
pub mod step_attach;
pub mod step_usage;
pub mod users;

//! One module per Slurm command; each takes its arguments and returns the process exit code.

pub mod scontrol;

pub fn run(command: &str, args: &[String]) -> u8 {
    match command {
        "scontrol" => scontrol::run(args),
        _ => 1,
    }
}

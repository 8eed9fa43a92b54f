//! `spur`: one binary for every Slurm command; the name it is called by (or its first argument) picks the command.
fn main() {
    eprintln!("spur: no command yet");
    std::process::exit(1);
}

//! spurstepd: Spur's per-job supervisor. Filled in by the single-node cluster work.
fn main() {
    eprintln!("spurstepd: not yet implemented");
    std::process::exit(1);
}

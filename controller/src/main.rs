//! spurctld: Spur's controller. Filled in by the single-node cluster work.
fn main() {
    eprintln!("spurctld: not yet implemented");
    std::process::exit(1);
}

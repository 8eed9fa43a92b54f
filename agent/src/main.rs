//! spurd: Spur's node agent. Filled in by the single-node cluster work.
fn main() {
    eprintln!("spurd: not yet implemented");
    std::process::exit(1);
}

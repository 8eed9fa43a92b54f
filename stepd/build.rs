//! spurstepd hosts the PMIx server of `srun --mpi=pmix` (pmix-plugin), whose accept filter keeps other local
//! users away from libpmix's loopback listener by being the `accept` libpmix binds to: the binary exports it
//! (pmix-plugin/src/guard.rs says why; the server refuses to start without it).
fn main() {
    println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol=accept");
}

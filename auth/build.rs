fn main() {
    // libmunge (Debian libmunge-dev): the same library Slurm's auth/munge plugin links.
    println!("cargo:rustc-link-lib=munge");
}

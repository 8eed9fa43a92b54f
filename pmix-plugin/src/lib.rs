//! PMIx server plugin; filled in by the MPI work.

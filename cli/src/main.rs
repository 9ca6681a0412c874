//! The `sheshbesh` binary: the command line in [`sheshbesh::run`].

use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`sheshbesh eval
    // ... | head -1`) would panic; quit quietly as other Unix tools do.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition before any thread
    // starts touches no Rust state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    sheshbesh::run()
}

//! `offload`: the command line of the storage-networking offload.
//!
//! Every subcommand's form is a contract other tools rely on (see README); bad input anywhere
//! gives a one-line error on stderr and a non-zero exit, never a panic or partial output that
//! looks valid.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    // Like other Unix filters, end quietly when the reader goes away (`offload … | head`)
    // instead of panicking in `println!` on EPIPE. Rust sets SIGPIPE to ignored at startup.
    // SAFETY: called once, before any thread is spawned; restores the default disposition.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // One line: the chain of causes joined, so scripts can grep it.
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("offload: error: {msg}");
            std::process::ExitCode::FAILURE
        }
    }
}

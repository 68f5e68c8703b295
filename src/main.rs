//! `offload`: the command line of the storage-networking offload.
//!
//! Every subcommand's form is a contract other tools rely on (see README); bad input anywhere
//! gives a one-line error on stderr and a non-zero exit, never a panic or partial output that
//! looks valid.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
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

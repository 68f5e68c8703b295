//! Input and output helpers shared by the subcommands.

use anyhow::Context;
use std::io::{Read, Write};
use std::path::Path;

/// Reads a whole file, or stdin when no path is given.
pub fn read_input(path: Option<&Path>) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    match path {
        Some(p) => {
            buf = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
        }
        None => {
            std::io::stdin().lock().read_to_end(&mut buf).context("reading stdin")?;
        }
    }
    Ok(buf)
}

/// Writes all of `bytes` to stdout at once, so a failure earlier leaves no partial output.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).context("writing stdout")?;
    out.flush().context("writing stdout")?;
    Ok(())
}

//! What a target serves: a run of 512-octet sectors behind [`BlockDevice`], from a file or
//! block device ([`FileDevice`]) or memory ([`MemDevice`], for tests and fuzzing).

use super::ata::SECTOR;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Sector storage. Callers keep `lba + n` within [`sectors`](BlockDevice::sectors).
pub trait BlockDevice {
    /// Capacity in sectors.
    fn sectors(&self) -> u64;
    /// Fills `buf` (a whole number of sectors) from `lba` on.
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Writes `data` (a whole number of sectors) from `lba` on.
    fn write(&mut self, lba: u64, data: &[u8]) -> io::Result<()>;
    /// Makes written data durable.
    fn flush(&mut self) -> io::Result<()>;
}

/// A regular file or a block device; a trailing partial sector is not served.
#[derive(Debug)]
pub struct FileDevice {
    file: File,
    sectors: u64,
}

impl FileDevice {
    /// Opens `path` read-write; its size is measured by seeking to the end, which also works
    /// for block devices.
    pub fn open(path: &Path) -> io::Result<Self> {
        use std::io::Seek;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        let len = file.seek(io::SeekFrom::End(0))?;
        Ok(FileDevice {
            file,
            sectors: len / SECTOR as u64,
        })
    }
}

impl BlockDevice for FileDevice {
    fn sectors(&self) -> u64 {
        self.sectors
    }
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at(buf, lba * SECTOR as u64)
    }
    fn write(&mut self, lba: u64, data: &[u8]) -> io::Result<()> {
        self.file.write_all_at(data, lba * SECTOR as u64)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// A disk in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemDevice {
    pub data: Vec<u8>,
    /// Number of `flush` calls, so tests can see FLUSH CACHE reach the device.
    pub flushes: u64,
}

impl MemDevice {
    pub fn new(sectors: usize) -> Self {
        MemDevice {
            data: vec![0; sectors * SECTOR],
            flushes: 0,
        }
    }
}

impl BlockDevice for MemDevice {
    fn sectors(&self) -> u64 {
        (self.data.len() / SECTOR) as u64
    }
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> io::Result<()> {
        let at = lba as usize * SECTOR;
        let src = self
            .data
            .get(at..at + buf.len())
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn write(&mut self, lba: u64, data: &[u8]) -> io::Result<()> {
        let at = lba as usize * SECTOR;
        let dst = self
            .data
            .get_mut(at..at + data.len())
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        dst.copy_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flushes += 1;
        Ok(())
    }
}

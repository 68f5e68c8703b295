//! The CLI's ULPDU record format: each record is a 2-octet big-endian length, then its octets.

use anyhow::bail;

/// Splits a byte string into records; a truncated final record is an error naming its offset.
pub fn parse(mut bytes: &[u8]) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut records = Vec::new();
    let mut offset = 0usize;
    while !bytes.is_empty() {
        if bytes.len() < 2 {
            bail!("record at input offset {offset}: truncated length field");
        }
        let len = u16::from_be_bytes([bytes[0], bytes[1]]) as usize;
        if bytes.len() < 2 + len {
            bail!("record at input offset {offset}: length {len} but only {} octets follow", bytes.len() - 2);
        }
        records.push(bytes[2..2 + len].to_vec());
        bytes = &bytes[2 + len..];
        offset += 2 + len;
    }
    Ok(records)
}

/// Serialises records.
pub fn encode<'a>(records: impl IntoIterator<Item = &'a Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        out.extend_from_slice(&(r.len() as u16).to_be_bytes());
        out.extend_from_slice(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let recs = vec![vec![1u8, 2, 3], vec![], vec![9; 300]];
        let bytes = encode(&recs);
        assert_eq!(parse(&bytes).unwrap(), recs);
        assert!(parse(&bytes[..bytes.len() - 1]).unwrap_err().to_string().contains("offset 7"));
        assert!(parse(&[0]).is_err());
    }
}

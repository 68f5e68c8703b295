//! A pcap of one TCP connection on loopback addresses, built segment by segment: the handshake,
//! then payloads in either direction with correct sequence and acknowledgement numbers, then
//! the FIN exchange. Packets are built with `etherparse`, written with `pcap-file`.

use anyhow::Context;
use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::DataLink;
use std::time::Duration;

/// Which end sends a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

struct End {
    mac: [u8; 6],
    ip: [u8; 4],
    port: u16,
    /// Next sequence number this end sends.
    seq: u32,
}

/// Builds the capture in memory; `finish` returns the pcap file bytes.
pub struct TcpCapture {
    writer: PcapWriter<Vec<u8>>,
    client: End,
    server: End,
    time: Duration,
}

impl TcpCapture {
    /// A connection 127.0.0.1:`client_port` → 127.0.0.2:`server_port`, handshake written.
    pub fn open(client_port: u16, server_port: u16) -> anyhow::Result<Self> {
        let header = PcapHeader { datalink: DataLink::ETHERNET, ..PcapHeader::default() };
        let writer = PcapWriter::with_header(Vec::new(), header).context("pcap header")?;
        let mut c = TcpCapture {
            writer,
            client: End { mac: [2, 0, 0, 0, 0, 1], ip: [127, 0, 0, 1], port: client_port, seq: 0x1000_0000 },
            server: End { mac: [2, 0, 0, 0, 0, 2], ip: [127, 0, 0, 2], port: server_port, seq: 0x2000_0000 },
            time: Duration::from_secs(1_700_000_000),
        };
        c.segment(Side::Client, Flags { syn: true, ..Flags::default() }, &[])?;
        c.segment(Side::Server, Flags { syn: true, ack: true, ..Flags::default() }, &[])?;
        c.segment(Side::Client, Flags { ack: true, ..Flags::default() }, &[])?;
        Ok(c)
    }

    /// One data segment (PSH, ACK) from `side`.
    pub fn send(&mut self, side: Side, payload: &[u8]) -> anyhow::Result<()> {
        self.segment(side, Flags { ack: true, psh: true, ..Flags::default() }, payload)
    }

    /// FIN from both ends, then the file bytes.
    pub fn finish(mut self) -> anyhow::Result<Vec<u8>> {
        self.segment(Side::Client, Flags { ack: true, fin: true, ..Flags::default() }, &[])?;
        self.segment(Side::Server, Flags { ack: true, fin: true, ..Flags::default() }, &[])?;
        self.segment(Side::Client, Flags { ack: true, ..Flags::default() }, &[])?;
        Ok(self.writer.into_writer())
    }

    fn segment(&mut self, side: Side, f: Flags, payload: &[u8]) -> anyhow::Result<()> {
        let (from, to) = match side {
            Side::Client => (&self.client, &self.server),
            Side::Server => (&self.server, &self.client),
        };
        let mut b = PacketBuilder::ethernet2(from.mac, to.mac)
            .ipv4(from.ip, to.ip, 64)
            .tcp(from.port, to.port, from.seq, 65535);
        if f.syn {
            b = b.syn();
        }
        if f.fin {
            b = b.fin();
        }
        if f.psh {
            b = b.psh();
        }
        if f.ack {
            b = b.ack(to.seq);
        }
        let mut frame = Vec::with_capacity(b.size(payload.len()));
        b.write(&mut frame, payload).context("building a TCP segment")?;
        // SYN and FIN take one sequence number each.
        let used = payload.len() as u32 + f.syn as u32 + f.fin as u32;
        match side {
            Side::Client => self.client.seq = self.client.seq.wrapping_add(used),
            Side::Server => self.server.seq = self.server.seq.wrapping_add(used),
        }
        self.time += Duration::from_micros(10);
        let pkt = PcapPacket::new(self.time, frame.len() as u32, &frame);
        self.writer.write_packet(&pkt).context("writing a pcap packet")?;
        Ok(())
    }
}

#[derive(Default, Clone, Copy)]
struct Flags {
    syn: bool,
    ack: bool,
    psh: bool,
    fin: bool,
}

//! A network the tests build from Linux network namespaces and remove when done: a switch namespace holding a
//! bridge (multicast snooping off, so the group floods to every port), one namespace per host, each joined to
//! the bridge by a veth pair, addresses 10.77.0.1 and fd77::1 (the source), 10.77.0.2 and fd77::2… (receivers). Nothing is
//! configured in the host's own namespace, and nothing is sent anywhere else.
//!
//! Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN); [`Lab::new`] returns `None` with a message otherwise, and the
//! tests skip.

use std::process::{Command, Stdio};

/// The lab network.
pub struct Lab {
    prefix: String,
    /// Number of receivers.
    pub receivers: usize,
}

fn run(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{}: {e}", args[0]))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Lab {
    /// Build the lab with `receivers` receivers, or say why not.
    pub fn new(tag: &str, receivers: usize) -> Option<Lab> {
        let prefix = format!("cv{}{tag}", std::process::id() % 100_000);
        let lab = Lab { prefix, receivers };
        match lab.build() {
            Ok(()) => Some(lab),
            Err(e) => {
                eprintln!("SKIPPED: network namespaces unavailable (needs root): {e}");
                None
            }
        }
    }

    /// The namespace of a host: 0 is the source, 1… the receivers.
    pub fn ns(&self, host: usize) -> String {
        format!("{}h{host}", self.prefix)
    }

    fn switch(&self) -> String {
        format!("{}sw", self.prefix)
    }

    /// The address of a host.
    pub fn addr(&self, host: usize) -> String {
        format!("10.77.0.{}", host + 1)
    }

    /// The IPv6 address of a host.
    pub fn addr6(&self, host: usize) -> String {
        format!("fd77::{}", host + 1)
    }

    fn build(&self) -> Result<(), String> {
        let sw = self.switch();
        run(&["ip", "netns", "add", &sw])?;
        run(&["ip", "-n", &sw, "link", "add", "br0", "type", "bridge"])?;
        run(&[
            "ip",
            "-n",
            &sw,
            "link",
            "set",
            "br0",
            "type",
            "bridge",
            "mcast_snooping",
            "0",
        ])?;
        run(&["ip", "-n", &sw, "link", "set", "br0", "up"])?;
        for host in 0..=self.receivers {
            let ns = self.ns(host);
            let port = format!("p{host}");
            run(&["ip", "netns", "add", &ns])?;
            run(&["ip", "-n", &ns, "link", "set", "lo", "up"])?;
            run(&[
                "ip", "-n", &sw, "link", "add", &port, "type", "veth", "peer", "name", "eth0",
                "netns", &ns,
            ])?;
            run(&["ip", "-n", &sw, "link", "set", &port, "master", "br0"])?;
            run(&["ip", "-n", &sw, "link", "set", &port, "up"])?;
            let cidr = format!("{}/24", self.addr(host));
            run(&["ip", "-n", &ns, "addr", "add", &cidr, "dev", "eth0"])?;
            let cidr6 = format!("{}/64", self.addr6(host));
            run(&[
                "ip", "-n", &ns, "addr", "add", &cidr6, "dev", "eth0", "nodad",
            ])?;
            run(&["ip", "-n", &ns, "link", "set", "eth0", "up"])?;
        }
        Ok(())
    }

    /// A command run inside a host's namespace.
    pub fn command(&self, host: usize, program: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns(host), program]);
        c
    }

    /// Limit the bridge's port toward receiver `host` with a token bucket (`tc tbf`): `rate` (e.g. "20mbit"),
    /// a queue of `limit_bytes`; a later call replaces the limit.
    pub fn shape(&self, host: usize, rate: &str, limit_bytes: u32) -> Result<(), String> {
        let limit = limit_bytes.to_string();
        run(&[
            "ip",
            "netns",
            "exec",
            &self.switch(),
            "tc",
            "qdisc",
            "replace",
            "dev",
            &format!("p{host}"),
            "root",
            "tbf",
            "rate",
            rate,
            "burst",
            "16kb",
            "limit",
            &limit,
        ])
    }

    /// Packets the bottleneck of [`Lab::shape`] toward receiver `host` dropped so far (`tc -s qdisc`).
    pub fn shaped_drops(&self, host: usize) -> Option<u64> {
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.switch(),
                "tc",
                "-s",
                "qdisc",
                "show",
                "dev",
            ])
            .arg(format!("p{host}"))
            .output()
            .ok()?;
        number_after(&String::from_utf8_lossy(&out.stdout), "dropped ")
    }

    /// Datagrams the kernel of `host` dropped for want of room in a socket's receive buffer so far (`Udp:
    /// RcvbufErrors` of its /proc/net/snmp): losses of a receiver too slow to read, not of its path.
    pub fn receive_buffer_drops(&self, host: usize) -> Option<u64> {
        let out = self
            .command(host, "cat")
            .arg("/proc/net/snmp")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut udp = text.lines().filter(|l| l.starts_with("Udp:"));
        let (names, values) = (udp.next()?, udp.next()?);
        let column = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
        values.split_whitespace().nth(column)?.parse().ok()
    }

    /// Count the UDP datagrams arriving at `host` on `port` (nftables, ahead of [`Lab::random_loss`]'s rules):
    /// what the path delivered, whatever the receiver then does with it.
    pub fn count_arrivals(&self, host: usize, port: u16) -> Result<(), String> {
        let ns = self.ns(host);
        let nft = |rule: &str| run(&["ip", "netns", "exec", &ns, "nft", rule]);
        nft("add table ip convoycount")?;
        nft("add chain ip convoycount input { type filter hook input priority -10 ; }")?;
        nft(&format!(
            "add rule ip convoycount input udp dport {port} counter"
        ))
    }

    /// IP bytes of the datagrams [`Lab::count_arrivals`] counted at `host` so far.
    pub fn arrived_bytes(&self, host: usize) -> Option<u64> {
        let out = self
            .command(host, "nft")
            .args(["list", "table", "ip", "convoycount"])
            .output()
            .ok()?;
        number_after(&String::from_utf8_lossy(&out.stdout), "bytes ")
    }

    /// Drop `percent` % of the UDP datagrams arriving at `host` on `port`, at random (nftables `numgen`).
    pub fn random_loss(&self, host: usize, port: u16, percent: u32) -> Result<(), String> {
        self.random_loss_of(host, "udp", port, percent)
    }

    /// [`Lab::random_loss`] for the TCP segments arriving at `host` on `port`: a TCP flow on the same lossy path.
    pub fn random_tcp_loss(&self, host: usize, port: u16, percent: u32) -> Result<(), String> {
        self.random_loss_of(host, "tcp", port, percent)
    }

    fn random_loss_of(
        &self,
        host: usize,
        proto: &str,
        port: u16,
        percent: u32,
    ) -> Result<(), String> {
        let ns = self.ns(host);
        let nft = |rule: &str| run(&["ip", "netns", "exec", &ns, "nft", rule]);
        // `add` of an existing table or chain is a no-op: rules accumulate.
        nft("add table ip convoyloss")?;
        nft("add chain ip convoyloss input { type filter hook input priority 0 ; }")?;
        nft(&format!(
            "add rule ip convoyloss input {proto} dport {port} numgen random mod 100 < {percent} counter drop"
        ))
    }
}

/// The number right after the first `label` in a tool's output (`tc -s qdisc`'s "dropped 12", nft's "bytes 3400").
fn number_after(text: &str, label: &str) -> Option<u64> {
    let after = text.split(label).nth(1)?;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

impl Drop for Lab {
    fn drop(&mut self) {
        // Deleting a namespace deletes its end of each veth pair, and with it the other end.
        for host in 0..=self.receivers {
            let _ = run(&["ip", "netns", "del", &self.ns(host)]);
        }
        let _ = run(&["ip", "netns", "del", &self.switch()]);
    }
}

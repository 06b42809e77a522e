//! The guard against DNS rebinding and other sites' pages: the `Host` and `Origin` a request
//! carries must name this server. Used by `/mcp` and by the ui's pages alike.

use std::net::SocketAddr;

use axum::extract::Request;
use axum::http::header;

/// The `Host` names a loopback server answers to (IPv6 without brackets).
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Which `Host` and `Origin` values name this server.
#[derive(Debug, Clone)]
pub(crate) struct HostRule {
    /// Lowercase host names and IPs (IPv6 without brackets).
    pub(super) hosts: Vec<String>,
    port: u16,
    /// Bound to every interface: any `Host` (the `Origin` is still checked).
    any_host: bool,
    /// Only pages served from this very port may call (the ui's pages, which no other local
    /// page has a reason to call); otherwise any port of ours (the Inspector's page calls `/mcp`).
    origin_on_our_port: bool,
}

/// Which header named another server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// `Host` (or, without one, the request URI's authority): DNS rebinding, most likely.
    Host,
    /// `Origin`: a page of another site.
    Origin,
}

impl HostRule {
    /// The rule of the MCP endpoint bound to `addr`: a page on another local port (such as the
    /// Inspector's) may call it.
    pub(crate) fn new(addr: SocketAddr) -> HostRule {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
        if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
            hosts.push(addr.ip().to_string().to_ascii_lowercase());
        }
        HostRule {
            hosts,
            port: addr.port(),
            any_host: addr.ip().is_unspecified(),
            origin_on_our_port: false,
        }
    }

    /// The rule of a page this binary serves on loopback `port` (the playground, the review
    /// page): its own address only, and calls only from itself.
    pub(crate) fn own_page(port: u16) -> HostRule {
        HostRule {
            origin_on_our_port: true,
            ..HostRule::new(SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, port)))
        }
    }

    /// Checks a request's `Host` (or its URI's authority, HTTP/1.0) and `Origin` (when sent;
    /// clients that are not browsers send none), logging a refusal.
    pub(crate) fn check(&self, request: &Request) -> Result<(), Refused> {
        let headers = request.headers();
        // HTTP/1.1 requires Host; HTTP/1.0 may omit it, and then the URI's authority counts.
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .or_else(|| request.uri().authority().map(|a| a.to_string()));
        if !host.as_deref().is_some_and(|h| self.host_allowed(h)) {
            tracing::warn!(host = ?host, "refused a request for another Host (DNS rebinding?)");
            return Err(Refused::Host);
        }
        if let Some(origin) = headers.get(header::ORIGIN)
            && !origin.to_str().is_ok_and(|o| self.origin_allowed(o))
        {
            tracing::warn!(origin = ?origin, "refused a request from another site's page");
            return Err(Refused::Origin);
        }
        Ok(())
    }

    fn names_us(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h == host)
    }

    /// `Host: name` or `Host: name:port`, with exactly our name and port.
    fn host_allowed(&self, value: &str) -> bool {
        if self.any_host {
            return true;
        }
        parse_authority(value)
            .is_some_and(|(host, port)| self.names_us(&host) && port.is_none_or(|p| p == self.port))
    }

    /// `Origin: http(s)://name[:port]` with one of our names (a page on another local port, such
    /// as the Inspector's, is the same machine, unless only our own port may call); `null` and
    /// anything else are refused.
    fn origin_allowed(&self, value: &str) -> bool {
        let Some((scheme, rest)) = value.split_once("://") else {
            return false;
        };
        let default_port = if scheme.eq_ignore_ascii_case("http") {
            80
        } else if scheme.eq_ignore_ascii_case("https") {
            443
        } else {
            return false;
        };
        parse_authority(rest).is_some_and(|(host, port)| {
            self.names_us(&host)
                && (!self.origin_on_our_port || port.unwrap_or(default_port) == self.port)
        })
    }
}

/// Splits `host[:port]` / `[v6][:port]` into a lowercase host and a port, refusing anything else:
/// user info, paths, empty or extra parts, a port that is not a number.
fn parse_authority(value: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        v6.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (v6.to_string(), port)
    } else {
        match value.split_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (value.to_string(), None),
        }
    };
    let name_ok = !host.is_empty()
        && (value.starts_with('[')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'));
    if !name_ok {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((host.to_ascii_lowercase(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> HostRule {
        HostRule::new("127.0.0.1:8124".parse().unwrap())
    }

    #[test]
    fn only_exact_loopback_hosts_on_our_port_pass() {
        let r = rule();
        for ok in [
            "localhost",
            "localhost:8124",
            "127.0.0.1:8124",
            "[::1]:8124",
            "[::1]",
            "LOCALHOST:8124",
        ] {
            assert!(r.host_allowed(ok), "{ok}");
        }
        for bad in [
            "localhost.evil.com",
            "127.0.0.1.nip.io",
            "localhost:8125",
            "localhost:",
            "localhost:80x",
            "evil@localhost",
            "localhost:8124/x",
            "localhost.",
            "[::1",
            "::1",
            "",
        ] {
            assert!(!r.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn origins_need_a_loopback_host_and_a_web_scheme() {
        let r = rule();
        for ok in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:6274",
        ] {
            assert!(r.origin_allowed(ok), "{ok}");
        }
        for bad in [
            "null",
            "http://localhost.evil.com",
            "http://127.0.0.1.nip.io:8124",
            "file://localhost",
            "http://evil.example",
            "http://localhost:3000/path",
            "localhost:3000",
        ] {
            assert!(!r.origin_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn own_pages_take_calls_only_from_their_own_port() {
        let r = HostRule::own_page(8124);
        for ok in ["http://127.0.0.1:8124", "http://localhost:8124"] {
            assert!(r.origin_allowed(ok), "{ok}");
        }
        for bad in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://localhost",
            "null",
        ] {
            assert!(!r.origin_allowed(bad), "{bad}");
        }
        assert!(r.host_allowed("127.0.0.1:8124") && !r.host_allowed("evil.example"));
    }
}

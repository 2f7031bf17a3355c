//! The HTTP side of the Nautobot store: token authentication, JSON in and out, every list followed
//! page by page, and errors that say what failed in words (unreachable, refused token, timeout, a page
//! cut short), with the token masked wherever it could appear.

use serde_json::Value as Json;
use std::io::Read as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The largest response body read (a page of 1,000 interfaces is about 2 MB).
const MAX_BODY: u64 = 256 << 20;

/// Why a request failed, in words: each names what was asked (`what`), the request and the server,
/// never the token (masked out of every text that could carry it).
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// 401 or 403.
    #[error(
        "{what}: {method} {url}: {code} {label}: the token was refused (is it the right one, and may it write? the token itself is not shown)"
    )]
    Refused {
        /// What was asked.
        what: String,
        /// The method.
        method: String,
        /// The address, cut to a readable length.
        url: String,
        /// 401 or 403.
        code: u16,
        /// `Unauthorized` or `Forbidden`.
        label: &'static str,
    },
    /// Any other error status, with the server's answer.
    #[error("{what}: {method} {url}: HTTP {code}: {body}")]
    Status {
        /// What was asked.
        what: String,
        /// The method.
        method: String,
        /// The address, cut to a readable length.
        url: String,
        /// The status.
        code: u16,
        /// The answer's first 2,000 bytes.
        body: String,
    },
    /// No answer within the timeout.
    #[error(
        "{what}: {method} {url}: no answer in time (timed out); is the server overloaded? --timeout gives it longer"
    )]
    Timeout {
        /// What was asked.
        what: String,
        /// The method.
        method: String,
        /// The address, cut to a readable length.
        url: String,
    },
    /// The server could not be reached, its name did not resolve, or the connection failed.
    #[error("{what}: {method} {url}: {problem} ({kind}: {detail})")]
    Transport {
        /// What was asked.
        what: String,
        /// The method.
        method: String,
        /// The address, cut to a readable length.
        url: String,
        /// In words: `it cannot be reached`, `its name does not resolve`, `the request failed`.
        problem: &'static str,
        /// The transport error's kind.
        kind: String,
        /// Its detail.
        detail: String,
    },
    /// The answer could not be read.
    #[error("{what}: reading the answer of {method} {url}: {error}")]
    Read {
        /// What was asked.
        what: String,
        /// The method.
        method: String,
        /// The address.
        url: String,
        /// The error.
        error: std::io::Error,
    },
    /// The answer is not JSON.
    #[error(
        "{what}: {method} {url} answered something that is not JSON ({error}); is it Nautobot's API?"
    )]
    NotJson {
        /// What was asked.
        what: String,
        /// The method.
        method: String,
        /// The address.
        url: String,
        /// The parser's error.
        error: serde_json::Error,
    },
    /// A list answered without `results`.
    #[error("{what}: GET {url} answered without a results list; is it Nautobot's API?")]
    NoResults {
        /// What was asked.
        what: String,
        /// The address.
        url: String,
    },
    /// The pages of a list held fewer (or more) results than its `count`.
    #[error(
        "{what}: the server said {said} results but its pages held {held}: a page was cut short (objects changed during the read?); nothing written, run again"
    )]
    CutShort {
        /// What was asked.
        what: String,
        /// The count the first page said.
        said: u64,
        /// The results the pages held.
        held: usize,
    },
}

/// A REST client of one server.
pub struct Client {
    agent: ureq::Agent,
    base: String,
    token: String,
    writes: AtomicUsize,
    reads: AtomicUsize,
}

impl Client {
    /// A client of the server at `base` (`https://nautobot.example.net`), each request allowed
    /// `timeout`.
    pub fn new(base: &str, token: &str, timeout: Duration) -> Client {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(timeout.min(Duration::from_secs(10)))
            .timeout(timeout)
            // A fresh connection per request: a kept-alive one the server closed in the meantime fails
            // a POST, which may not be retried (a bulk request is large enough for the handshake not
            // to matter).
            .max_idle_connections(0)
            .build();
        Client {
            agent,
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
            writes: AtomicUsize::new(0),
            reads: AtomicUsize::new(0),
        }
    }

    /// Read and write requests (POST, PATCH, DELETE) made so far.
    pub fn requests(&self) -> (usize, usize) {
        (
            self.reads.load(Ordering::SeqCst),
            self.writes.load(Ordering::SeqCst),
        )
    }

    /// The server's address as given.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `text` with the token replaced by `***`.
    pub fn mask(&self, text: &str) -> String {
        if self.token.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.token, "***")
    }

    fn url(&self, path: &str) -> String {
        if path.starts_with("http://") || path.starts_with("https://") {
            path.to_string()
        } else {
            format!("{}/api/{}", self.base, path.trim_start_matches('/'))
        }
    }

    /// One request; `what` names the object for the error. A read the server could not answer for a
    /// moment ([`HttpError::transient`]) is tried again after 1, 2 and 4 s.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Json>,
        what: &str,
    ) -> Result<Json, HttpError> {
        let mut waits = RETRY_WAITS_MS.iter();
        loop {
            match self.call_once(method, path, body, what) {
                Err(e) if method == "GET" && e.transient() => match waits.next() {
                    Some(&ms) => std::thread::sleep(Duration::from_millis(ms)),
                    None => return Err(e),
                },
                answer => return answer,
            }
        }
    }

    /// One request, once.
    fn call_once(
        &self,
        method: &str,
        path: &str,
        body: Option<&Json>,
        what: &str,
    ) -> Result<Json, HttpError> {
        let url = self.url(path);
        let counter = if method == "GET" {
            &self.reads
        } else {
            &self.writes
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let req = self
            .agent
            .request(method, &url)
            .set("Authorization", &format!("Token {}", self.token))
            .set("Accept", "application/json");
        let res = match body {
            Some(b) => req
                .set("Content-Type", "application/json")
                .send_string(&b.to_string()),
            None => req.call(),
        };
        let resp = res.map_err(|e| error(e, method, &self.mask(&url), what, |t| self.mask(t)))?;
        if resp.status() == 204 {
            return Ok(Json::Null);
        }
        let mut text = String::new();
        resp.into_reader()
            .take(MAX_BODY)
            .read_to_string(&mut text)
            .map_err(|error| HttpError::Read {
                what: what.to_string(),
                method: method.to_string(),
                url: self.mask(&url),
                error,
            })?;
        if text.is_empty() {
            return Ok(Json::Null);
        }
        serde_json::from_str(&text).map_err(|error| HttpError::NotJson {
            what: what.to_string(),
            method: method.to_string(),
            url: self.mask(&url),
            error,
        })
    }

    /// Every result of a list endpoint (`dcim/devices/?name=x`), following `next` page by page with
    /// pages of 1,000, each object once (an object another writer's change moved across a page
    /// boundary can come twice, and a filter's join can list one twice). Where neither the results
    /// nor the objects add up to the first page's `count` (another writer added or removed some while
    /// the pages were read), the list is read again, up to [`READS`] times; then it fails.
    pub fn list(&self, path: &str, what: &str) -> Result<Vec<Json>, HttpError> {
        let mut last = None;
        for _ in 0..READS {
            let (out, pages, count) = self.list_once(path, what)?;
            // Nautobot's count may hold an object its pages hold twice (a filter's join): either way
            // of counting that adds up is a whole read.
            match count.and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n != out.len() && n != pages => last = Some((n as u64, pages)),
                _ => return Ok(out),
            }
        }
        let (said, held) = last.unwrap_or_default();
        Err(HttpError::CutShort {
            what: what.to_string(),
            said,
            held,
        })
    }

    /// One read of every page: the distinct objects (by `id`, in order), how many results the pages
    /// held, and the first page's count.
    fn list_once(
        &self,
        path: &str,
        what: &str,
    ) -> Result<(Vec<Json>, usize, Option<u64>), HttpError> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut next = Some(format!("{path}{sep}limit=1000&depth=0"));
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut count = None;
        let mut pages = 0;
        while let Some(p) = next.take() {
            let page = self.call("GET", &p, None, what)?;
            count = count.or_else(|| page.get("count").and_then(Json::as_u64));
            let Some(results) = page.get("results").and_then(Json::as_array) else {
                return Err(HttpError::NoResults {
                    what: what.to_string(),
                    url: self.mask(&self.url(&p)),
                });
            };
            pages += results.len();
            for r in results {
                let id = r.get("id").and_then(Json::as_str).map(str::to_string);
                if id.is_none_or(|id| seen.insert(id)) {
                    out.push(r.clone());
                }
            }
            next = page.get("next").and_then(Json::as_str).map(str::to_string);
        }
        Ok((out, pages, count))
    }
}

/// How many times a list is read before pages that do not add up to their count are an error.
const READS: usize = 3;

/// The waits (ms) before a read the server could not answer for a moment is tried again
/// ([`HttpError::transient`]); a write is never sent twice.
#[cfg(not(test))]
const RETRY_WAITS_MS: [u64; 3] = [1_000, 2_000, 4_000];
#[cfg(test)]
const RETRY_WAITS_MS: [u64; 3] = [10, 20, 40];

/// The problem of a name that does not resolve: not transient.
const NO_NAME: &str = "its name does not resolve";

impl HttpError {
    /// Whether the server could not answer for a moment, so a read may be tried again: a 502, 503 or
    /// 504 (a proxy in front of restarting or saturated workers), a refused or reset connection. A
    /// timeout is not (the request already had `--timeout`), nor a name that does not resolve.
    pub fn transient(&self) -> bool {
        match self {
            HttpError::Status { code, .. } => matches!(code, 502..=504),
            HttpError::Transport { problem, .. } => *problem != NO_NAME,
            _ => false,
        }
    }
}

/// A URL cut to a readable length (a read's filter may list 40 ids).
fn short(url: &str) -> String {
    match url.char_indices().nth(160) {
        Some((at, _)) => format!("{}...", &url[..at]),
        None => url.to_string(),
    }
}

/// What a failed request means, in words; `mask` hides the token in any text the server sent.
fn error(
    e: ureq::Error,
    method: &str,
    url: &str,
    what: &str,
    mask: impl Fn(&str) -> String,
) -> HttpError {
    let (what, method, url) = (what.to_string(), method.to_string(), short(url));
    match e {
        ureq::Error::Status(code @ (401 | 403), _) => HttpError::Refused {
            what,
            method,
            url,
            code,
            label: if code == 401 {
                "Unauthorized"
            } else {
                "Forbidden"
            },
        },
        ureq::Error::Status(code, resp) => {
            let mut body = String::new();
            let _ = resp.into_reader().take(2000).read_to_string(&mut body);
            HttpError::Status {
                what,
                method,
                url,
                code,
                body: mask(body.trim()),
            }
        }
        ureq::Error::Transport(t) => {
            let io = std::error::Error::source(&t)
                .and_then(|e| e.downcast_ref::<std::io::Error>())
                .map(std::io::Error::kind);
            let timeout = matches!(
                io,
                Some(std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock)
            ) || t.to_string().to_ascii_lowercase().contains("timed out");
            if timeout {
                return HttpError::Timeout { what, method, url };
            }
            let problem = match t.kind() {
                ureq::ErrorKind::Dns => NO_NAME,
                ureq::ErrorKind::ConnectionFailed => "it cannot be reached",
                _ => "the request failed",
            };
            let detail = t
                .message()
                .map_or_else(|| t.kind().to_string(), str::to_string);
            HttpError::Transport {
                what,
                method,
                url,
                problem,
                kind: t.kind().to_string(),
                detail: mask(&detail),
            }
        }
    }
}

/// Percent-encodes a query value.
pub fn q(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A one-route HTTP server for the tests: answers every request with `status` and `body`, and
/// returns its address (`http://127.0.0.1:<port>`).
#[cfg(test)]
pub(crate) fn fake_server(status: u16, body: &'static str) -> String {
    fake_server_replies(vec![(status, body)])
}

/// A test server that answers its requests with `bodies` in turn (status 200), the last one again
/// once they run out; returns its address.
#[cfg(test)]
pub(crate) fn fake_server_seq(bodies: Vec<&'static str>) -> String {
    fake_server_replies(bodies.into_iter().map(|b| (200, b)).collect())
}

/// A test server that answers its requests with `replies` (status, body) in turn, the last one again
/// once they run out; returns its address.
#[cfg(test)]
pub(crate) fn fake_server_replies(replies: Vec<(u16, &'static str)>) -> String {
    use std::io::{BufRead as _, BufReader, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().flatten().enumerate() {
            // The request whole, body included: a socket closed with unread bytes is reset, and the
            // client may see the reset before the answer.
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            let mut length = 0;
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body_in = vec![0; length];
            let _ = std::io::Read::read_exact(&mut reader, &mut body_in);
            let (status, body) = replies[i.min(replies.len() - 1)];
            let mut w = &stream;
            let _ = write!(
                w,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_read_the_server_could_not_answer_for_a_moment_is_tried_again() {
        let url = super::fake_server_replies(vec![
            (503, "busy"),
            (502, "bad gateway"),
            (200, r#"{"version": "2.4.44"}"#),
        ]);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let v = c.call("GET", "status/", None, "status").expect("third try");
        assert_eq!(v["version"], "2.4.44");
        assert_eq!(c.requests(), (3, 0));
    }

    #[test]
    fn a_server_that_stays_busy_or_a_write_is_not_tried_forever() {
        let url = super::fake_server_replies(vec![(503, "busy")]);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let e = c.call("GET", "status/", None, "status").expect_err("busy");
        assert!(e.to_string().contains("HTTP 503"), "{e}");
        assert_eq!(c.requests(), (4, 0));
        // A write is sent once: the server may have applied it.
        let body = serde_json::json!([{"name": "x"}]);
        let e = c.call("POST", "dcim/devices/", Some(&body), "devices");
        assert!(e.is_err());
        assert_eq!(c.requests(), (4, 1));
        // Another error status is not retried.
        let url = super::fake_server_replies(vec![(400, "bad"), (200, "{}")]);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        assert!(c.call("GET", "status/", None, "status").is_err());
        assert_eq!(c.requests(), (1, 0));
    }

    #[test]
    fn a_list_that_changed_while_read_is_read_again() {
        // The first read: the count says 3, one object was removed before the page was served; the
        // second read adds up.
        let url = super::fake_server_seq(vec![
            r#"{"count": 3, "next": null, "results": [{"id": "a"}, {"id": "b"}]}"#,
            r#"{"count": 2, "next": null, "results": [{"id": "a"}, {"id": "b"}]}"#,
        ]);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let got = c
            .list("dcim/devices/", "reading the devices")
            .expect("read again");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn an_object_moved_across_a_page_boundary_is_read_once() {
        // Another writer's insert pushed b from the end of page 1 to the start of page 2.
        let url = super::fake_server_seq(vec![
            r#"{"count": 3, "next": "dcim/devices/?offset=2", "results": [{"id": "a"}, {"id": "b"}]}"#,
            r#"{"count": 3, "next": null, "results": [{"id": "b"}, {"id": "c"}]}"#,
        ]);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let got = c
            .list("dcim/devices/", "reading the devices")
            .expect("each once");
        let ids: Vec<&str> = got.iter().filter_map(|j| j["id"].as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }

    #[test]
    fn an_object_the_server_counts_twice_is_read_once_without_a_second_read() {
        // The count holds b twice, as the pages do (a filter's join): a whole read.
        let url = super::fake_server_seq(vec![
            r#"{"count": 3, "next": null, "results": [{"id": "a"}, {"id": "b"}, {"id": "b"}]}"#,
            r#"{"count": 1, "next": null, "results": []}"#,
        ]);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let got = c
            .list("dcim/devices/", "reading the devices")
            .expect("whole");
        let ids: Vec<&str> = got.iter().filter_map(|j| j["id"].as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn a_page_cut_short_is_an_error() {
        let url = super::fake_server(
            200,
            r#"{"count": 5, "next": null, "results": [{"id": "a"}, {"id": "b"}]}"#,
        );
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let e = c
            .list("dcim/devices/", "reading the devices")
            .expect_err("short")
            .to_string();
        assert!(
            e.contains("reading the devices") && e.contains("cut short"),
            "{e}"
        );
        assert!(e.contains("said 5") && e.contains("held 2"), "{e}");
    }

    #[test]
    fn a_forbidden_answer_says_the_token_was_refused() {
        let url = super::fake_server(403, r#"{"detail": "Invalid token"}"#);
        let c = super::Client::new(&url, "tok-tok-tok", std::time::Duration::from_secs(5));
        let e = c
            .call("GET", "status/", None, "the server's version")
            .expect_err("403")
            .to_string();
        assert!(e.contains("403") && e.contains("token was refused"), "{e}");
        assert!(!e.contains("tok-tok-tok"), "{e}");
    }

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(super::q("aifab:pod 1/x"), "aifab%3Apod%201%2Fx");
    }

    #[test]
    fn an_unreachable_server_is_named_and_the_token_masked() {
        // A port nothing listens on: connection refused at once.
        let c = super::Client::new(
            "http://127.0.0.1:9",
            "secret-token-123",
            std::time::Duration::from_secs(2),
        );
        let e = c
            .call("GET", "status/", None, "the server's version")
            .expect_err("refused")
            .to_string();
        assert!(e.contains("cannot be reached"), "{e}");
        assert!(e.contains("127.0.0.1:9"), "{e}");
        assert!(!e.contains("secret-token-123"), "{e}");
    }
}

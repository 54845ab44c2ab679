//! The Redis store's own tests: the store suite of `protocol::tasks::suite` on a
//! real `redis-server`, and the URL and auth-file readers.

use super::*;
use crate::protocol::tasks::suite;

/// A `redis-server` of the test's own on a free port (killed on drop), or `None`
/// when there is none to start (a `SKIP` line on stderr; a failure under CI,
/// which installs Debian's).
struct Server(std::process::Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn redis_server() -> Option<Server> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .ok()?
        .port();
    let child = std::process::Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(std::env::temp_dir())
        .stdout(std::process::Stdio::null())
        .spawn();
    let Ok(child) = child else {
        // A test that checked nothing must not pass under CI (`CI=true`, as CI
        // services and `.ci/run` set it); elsewhere the skip is said loudly.
        let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"));
        assert!(
            !ci,
            "redis-server is not on PATH and CI is set: the Redis store suite \
             would check nothing (apt-get install redis-server)"
        );
        log::warn!(
            "SKIP store::redis: redis-server is not on PATH; nothing was checked \
             (apt-get install redis-server)"
        );
        return None;
    };
    let server = Server(child, port);
    for _ in 0..500 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(server);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("redis-server did not listen on {port}");
}

fn settings(port: u16) -> Settings {
    Settings {
        target: Target::parse(&format!("redis://127.0.0.1:{port}")).unwrap(),
        prefix: "suite".into(),
        timeout: DEFAULT_TIMEOUT,
        max_reply: DEFAULT_MAX_REPLY,
        lease: DEFAULT_LEASE,
        trace: false,
        tls: None,
        auth: None,
    }
}

/// The store suite of `protocol::tasks::suite`, on two replicas of one real Redis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_suite_runs_on_redis() {
    let Some(server) = redis_server() else {
        return;
    };
    let replica = || async {
        connect(settings(server.1), TaskLimits::default())
            .await
            .unwrap()
            .tasks
    };
    let (a, b) = (replica().await, replica().await);
    suite::created_here_read_there_and_completed("redis", a.clone(), b.clone()).await;
    suite::cancelled_there_stops_the_work_here("redis", a.clone(), b.clone()).await;
    suite::answered_there_resumes_the_work_here("redis", a, b).await;
}

#[tokio::test]
async fn an_unreachable_store_is_an_error_naming_it() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let e = connect(settings(port), TaskLimits::default())
        .await
        .err()
        .unwrap();
    assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
}

#[test]
fn store_urls_are_read_or_refused_quoting_the_value() {
    assert_eq!(
        Target::parse("redis://127.0.0.1:6379").unwrap(),
        Target {
            tls: false,
            host: "127.0.0.1".into(),
            port: 6379,
            db: None
        }
    );
    assert_eq!(Target::parse("redis://h:1/3").unwrap().db, Some(3));
    let tls = Target::parse("rediss://h:6380/2").unwrap();
    assert!(tls.tls && tls.port == 6380 && tls.url() == "rediss://h:6380/2");
    assert_eq!(
        Target::parse("redis://[::1]:7000").unwrap().addr(),
        "[::1]:7000"
    );
    for (bad, says) in [
        ("http://h:1", "only redis://"),
        ("redis://h", "port is missing"),
        ("redis://h:0", "not a port"),
        ("redis://h:x", "not a port"),
        ("redis://:1", "host is missing"),
        ("redis://h:1/x", "database"),
    ] {
        let e = Target::parse(bad).unwrap_err();
        assert!(e.contains(says) && e.contains(bad), "{bad}: {e}");
    }
    let e = Target::parse("redis://user:s3cret@h:1").unwrap_err();
    assert!(!e.contains("s3cret"), "{e}");
    let e = Target::parse("rediss://user:s3cret@h:1").unwrap_err();
    assert!(
        !e.contains("s3cret") && e.contains("--store-auth-file"),
        "{e}"
    );
}

#[test]
fn auth_files_hold_one_line_and_errors_never_quote_it() {
    let dir = std::env::temp_dir().join(format!("mcp-raw-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let a = Auth::from_file(&file("user", "app:pa:ss\n")).unwrap();
    assert_eq!(
        (a.user.as_deref(), a.password.as_str()),
        (Some("app"), "pa:ss")
    );
    let a = Auth::from_file(&file("bare", "s3cret")).unwrap();
    assert_eq!((a.user.as_deref(), a.password.as_str()), (None, "s3cret"));
    assert!(!format!("{a:?}").contains("s3cret"));
    for (name, text, says) in [
        ("empty", "\n", "password is empty"),
        ("nouser", ":s3cret\n", "user is empty"),
        ("two", "s3cret\nmore\n", "more than one line"),
    ] {
        let e = Auth::from_file(&file(name, text)).unwrap_err();
        assert!(
            e.contains(says) && e.contains(name) && !e.contains("s3cret"),
            "{e}"
        );
    }
    let e = Auth::from_file(&dir.join("missing")).unwrap_err();
    assert!(e.contains("cannot read"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

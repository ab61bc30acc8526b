//! The confined path resolver: any path string against a small fixed workspace whose symlinks
//! lead in, out, in circles and into `.filekeeper/`.
//!
//! Input: the first byte picks the intent (`r` read, `w` write, `s` write allowing
//! credential-shaped names; other bytes by their value), the rest is the path, in which
//! `@ROOT@` and `@BASE@` stand for the host paths of the workspace root and of the directory
//! above it, so absolute paths in and out can be written in a corpus file.
//!
//! Invariants of a success: the parent handle really is inside the root; the returned
//! workspace-relative path is clean (no `..`, `.`, empty or absolute parts, never in
//! `.filekeeper/`) and names the very object the handle reaches; what exists there is what
//! the resolution said (never a symlink or a special file); resolving it again gives the same
//! answer; a write target is never credential-shaped unless allowed; and whatever a write
//! resolves, a read resolves the same way. Of a failure: a code the resolver documents, and
//! never the host path in the message.
#![no_main]

use filekeeper::plumbing::resolve::{Intent, Kind, Resolved, Root, kind_at};
use filekeeper::plumbing::{Code, sensitive};
use libfuzzer_sys::fuzz_target;
use std::os::fd::AsRawFd;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::sync::OnceLock;

struct Fixture {
    base: PathBuf,
    root: Root,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("fk-fuzz-resolve.")
            .tempdir()
            .expect("a temp dir");
        let base = dir.keep().canonicalize().expect("canonical");
        let ws = base.join("ws");
        let out = base.join("outside");
        let b = |p: &str| base.join(p);
        for d in ["ws/dir/sub", "ws/.filekeeper", "ws/.ssh", "outside/dir"] {
            std::fs::create_dir_all(b(d)).expect("mkdir");
        }
        for f in [
            "ws/a.txt",
            "ws/.env",
            "ws/key.pem",
            "ws/dir/b.txt",
            "ws/dir/sub/c.txt",
            "ws/.ssh/config",
            "ws/.filekeeper/journal",
            "outside/secret.txt",
        ] {
            std::fs::write(b(f), f).expect("write");
        }
        let links: &[(&str, String)] = &[
            ("ws/link_file", "dir/b.txt".into()),
            ("ws/link_dir", "dir".into()),
            ("ws/dir/up", "..".into()),
            ("ws/dir/self", ".".into()),
            ("ws/dir/loop", "loop".into()),
            ("ws/dir/loop2", "loop3".into()),
            ("ws/dir/loop3", "loop2".into()),
            ("ws/chain", "link_dir/up/link_file".into()),
            ("ws/abs_in", format!("{}/dir", ws.display())),
            ("ws/abs_root", ws.display().to_string()),
            ("ws/abs_dotdot", format!("{}/dir/../a.txt", ws.display())),
            ("ws/abs_dotdot_out", format!("{}/../outside", ws.display())),
            ("ws/rel_out", "../outside".into()),
            ("ws/abs_out", format!("{}/secret.txt", out.display())),
            ("ws/sneaky", "dir/../../outside".into()),
            ("ws/dir/deep_out", "../../outside/dir".into()),
            ("ws/dangling", "nope".into()),
            ("ws/dangling_dir", "nope/x".into()),
            ("ws/to_state", ".filekeeper".into()),
            ("ws/to_state_file", ".filekeeper/journal".into()),
            ("ws/dir/to_env", "../.env".into()),
            ("ws/ssh", ".ssh".into()),
            ("ws/empty_target", "./".into()),
            ("outside/back", "../ws".into()),
        ];
        for (at, target) in links {
            symlink(target, b(at)).expect("symlink");
        }
        // A special file: a socket (its file stays after the listener is dropped).
        drop(std::os::unix::net::UnixListener::bind(b("ws/dir/socket")).expect("socket"));
        let root = Root::open(&ws).expect("the root opens");
        Fixture { base, root }
    })
}

/// The host path an O_PATH handle refers to.
fn fd_path(resolved: &Resolved) -> PathBuf {
    std::fs::read_link(format!("/proc/self/fd/{}", resolved.parent().as_raw_fd()))
        .expect("readlink of an fd")
}

fn check_success(f: &Fixture, given: &str, intent: Intent, r: &Resolved) {
    let root = f.root.host_path();
    let parent = fd_path(r);
    assert!(
        parent.starts_with(root),
        "{given:?} resolved to a handle outside the root: {}",
        parent.display()
    );
    assert_eq!(r.given, given);
    // A clean relative path.
    if r.rel == "." {
        assert!(r.is_root());
        assert_eq!(r.kind, Some(Kind::Directory));
        assert_eq!(parent, root);
    } else {
        assert!(!r.is_root());
        let parts: Vec<&str> = r.rel.split('/').collect();
        for p in &parts {
            assert!(!matches!(*p, "" | "." | ".."), "unclean rel {:?}", r.rel);
        }
        assert_ne!(
            parts[0], ".filekeeper",
            "rel inside the state dir: {:?}",
            r.rel
        );
        // The handle and the name are exactly where rel says.
        let name = r.name().expect("a name");
        assert_eq!(
            parent.join(name),
            root.join(&r.rel),
            "{given:?}: rel {:?} is not where the handle is",
            r.rel
        );
        // What is there is what the resolution said.
        let there = kind_at(r.parent(), name).expect("lstat");
        let there = there.map(|t| {
            if t.is_file() {
                Kind::File
            } else if t.is_dir() {
                Kind::Directory
            } else {
                panic!("{given:?} resolved to a {t:?}")
            }
        });
        assert_eq!(there, r.kind, "{given:?}");
        if let Intent::Write {
            allow_sensitive: false,
        } = intent
        {
            assert_eq!(sensitive::reason(&parts), None, "{given:?} -> {:?}", r.rel);
        }
    }
    // Stable: the real path resolves to itself.
    let again = f.root.resolve(&r.rel, intent).expect("rel resolves again");
    assert_eq!((again.rel.as_str(), again.kind), (r.rel.as_str(), r.kind));
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let intent = match first {
        b'r' => Intent::Read,
        b'w' => Intent::Write {
            allow_sensitive: false,
        },
        b's' => Intent::Write {
            allow_sensitive: true,
        },
        n => [
            Intent::Read,
            Intent::Write {
                allow_sensitive: false,
            },
            Intent::Write {
                allow_sensitive: true,
            },
        ][usize::from(n % 3)],
    };
    let f = fixture();
    let raw = String::from_utf8_lossy(rest);
    let root_text = f.root.host_path().to_string_lossy();
    let given = raw
        .replace("@ROOT@", &root_text)
        .replace("@BASE@", &f.base.to_string_lossy());
    let _ = f.root.relative(&given);
    match f.root.resolve(&given, intent) {
        Ok(r) => {
            check_success(f, &given, intent, &r);
            if intent != Intent::Read {
                let read = f
                    .root
                    .resolve(&given, Intent::Read)
                    .expect("a write target resolves for reading too");
                assert_eq!((read.rel.as_str(), read.kind), (r.rel.as_str(), r.kind));
            }
        }
        Err(e) => {
            assert!(
                matches!(
                    e.code,
                    Code::InvalidArgument
                        | Code::PathNotFound
                        | Code::PathOutsideWorkspace
                        | Code::AbsolutePathOutsideWorkspace
                        | Code::NotADirectory
                        | Code::PathIsStatePath
                        | Code::SymlinkWriteRefused
                        | Code::SensitivePathRefused
                        | Code::SymlinkEscapeRefused
                        | Code::SpecialFileRefused
                ),
                "{given:?}: unexpected {:?}: {}",
                e.code,
                e.message
            );
            let base = f.base.to_string_lossy();
            assert!(
                !e.message.contains(base.as_ref()),
                "{given:?}: the host path leaked: {}",
                e.message
            );
        }
    }
});

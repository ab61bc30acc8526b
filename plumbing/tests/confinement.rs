//! The resolver and the publisher against hostile trees, including a racing attacker.

use filekeeper_plumbing::Code;
use filekeeper_plumbing::publish::{Expect, publish};
use filekeeper_plumbing::resolve::{Intent, Kind, Root};
use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const READ: Intent = Intent::Read;
const WRITE: Intent = Intent::Write {
    allow_sensitive: false,
};

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    fs::create_dir_all(root.join("dir/sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("dir/file.txt"), "inside").unwrap();
    fs::write(outside.join("file.txt"), "secret").unwrap();
    Tree {
        root,
        outside,
        _dir: dir,
    }
}

fn code(root: &Root, path: &str, intent: Intent) -> Code {
    root.resolve(path, intent).unwrap_err().code
}

#[test]
fn relative_paths_resolve_inside_and_report_their_real_path() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    let r = root.resolve("./dir//file.txt", READ).unwrap();
    assert_eq!(r.rel, "dir/file.txt");
    assert_eq!(r.kind, Some(Kind::File));
    let mut s = String::new();
    r.open_file().unwrap().read_to_string(&mut s).unwrap();
    assert_eq!(s, "inside");
    assert_eq!(root.resolve(".", READ).unwrap().kind, Some(Kind::Directory));
    assert_eq!(root.resolve("dir/new.txt", WRITE).unwrap().kind, None);
}

#[test]
fn dot_dot_is_outside_even_when_it_would_stay_inside() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    for path in ["../x", "dir/../dir/file.txt", "dir/..", ".."] {
        assert_eq!(
            code(&root, path, READ),
            Code::PathOutsideWorkspace,
            "{path}"
        );
    }
}

#[test]
fn absolute_paths_must_land_inside() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    let inside = t.root.join("dir/file.txt");
    assert_eq!(
        root.resolve(inside.to_str().unwrap(), READ).unwrap().rel,
        "dir/file.txt"
    );
    let outside = t.outside.join("file.txt");
    assert_eq!(
        code(&root, outside.to_str().unwrap(), READ),
        Code::AbsolutePathOutsideWorkspace
    );
    // A sibling sharing the root's prefix is outside.
    let sibling = PathBuf::from(format!("{}-evil", t.root.display()));
    fs::create_dir(&sibling).unwrap();
    fs::write(sibling.join("f"), "x").unwrap();
    let path = sibling.join("f");
    assert_eq!(
        code(&root, path.to_str().unwrap(), READ),
        Code::AbsolutePathOutsideWorkspace
    );
}

#[test]
fn links_inside_are_followed_for_reads_and_refused_as_write_targets() {
    let t = tree();
    symlink("dir/file.txt", t.root.join("alias")).unwrap();
    symlink("..", t.root.join("dir/sub/up")).unwrap();
    let root = Root::open(&t.root).unwrap();
    assert_eq!(root.resolve("alias", READ).unwrap().rel, "dir/file.txt");
    assert_eq!(
        root.resolve("dir/sub/up/file.txt", READ).unwrap().rel,
        "dir/file.txt"
    );
    assert_eq!(code(&root, "alias", WRITE), Code::SymlinkWriteRefused);
    // Through a link to a directory inside, a write target is fine.
    assert_eq!(
        root.resolve("dir/sub/up/new.txt", WRITE).unwrap().rel,
        "dir/new.txt"
    );
}

#[test]
fn links_leaving_the_root_are_escapes_for_reads_and_writes() {
    let t = tree();
    symlink(&t.outside, t.root.join("out")).unwrap();
    symlink("../../outside/file.txt", t.root.join("dir/climb")).unwrap();
    symlink(t.outside.join("file.txt"), t.root.join("abs")).unwrap();
    let root = Root::open(&t.root).unwrap();
    for path in ["out", "out/file.txt", "dir/climb", "abs"] {
        assert_eq!(
            code(&root, path, READ),
            Code::SymlinkEscapeRefused,
            "{path}"
        );
        assert_eq!(
            code(&root, path, WRITE),
            Code::SymlinkEscapeRefused,
            "{path}"
        );
    }
}

#[test]
fn link_loops_are_refused_not_followed_forever() {
    let t = tree();
    symlink("b", t.root.join("a")).unwrap();
    symlink("a", t.root.join("b")).unwrap();
    let root = Root::open(&t.root).unwrap();
    assert_eq!(code(&root, "a", READ), Code::InvalidArgument);
}

#[test]
fn state_paths_are_refused_however_they_are_reached() {
    let t = tree();
    fs::create_dir(t.root.join(".filekeeper")).unwrap();
    symlink(".filekeeper", t.root.join("state")).unwrap();
    let root = Root::open(&t.root).unwrap();
    assert_eq!(
        code(&root, ".filekeeper/journal.sqlite3", READ),
        Code::PathIsStatePath
    );
    assert_eq!(code(&root, ".filekeeper", READ), Code::PathIsStatePath);
    assert_eq!(code(&root, "state/x", READ), Code::PathIsStatePath);
}

#[test]
fn special_files_and_non_directories_are_refused() {
    let t = tree();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        t.root.join("fifo").as_path(),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let root = Root::open(&t.root).unwrap();
    assert_eq!(code(&root, "fifo", READ), Code::SpecialFileRefused);
    assert_eq!(code(&root, "dir/file.txt/x", READ), Code::NotADirectory);
    assert_eq!(code(&root, "nope/x", WRITE), Code::PathNotFound);
}

#[test]
fn credential_shaped_write_targets_need_the_override() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    assert_eq!(code(&root, ".env", WRITE), Code::SensitivePathRefused);
    assert!(
        root.resolve(
            ".env",
            Intent::Write {
                allow_sensitive: true
            }
        )
        .is_ok()
    );
    assert!(root.resolve(".env", READ).is_ok());
    // A link inside the root whose real path is credential-shaped is judged by its real path.
    fs::create_dir(t.root.join(".ssh")).unwrap();
    symlink(".ssh", t.root.join("keys")).unwrap();
    assert_eq!(
        code(&root, "keys/config", WRITE),
        Code::SensitivePathRefused
    );
}

#[test]
fn a_directory_swapped_after_resolving_is_not_a_directory_not_a_storage_error() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    let resolved = root.resolve("dir/sub", READ).unwrap();
    assert_eq!(resolved.kind, Some(Kind::Directory));
    fs::remove_dir(t.root.join("dir/sub")).unwrap();
    symlink(&t.outside, t.root.join("dir/sub")).unwrap();
    assert_eq!(resolved.open_dir().unwrap_err().code, Code::NotADirectory);
    assert_eq!(
        resolved.open_dir_to_inspect().unwrap_err().code,
        Code::NotADirectory
    );
}

fn publish_bytes(root: &Root, path: &str, bytes: &[u8]) -> filekeeper_plumbing::Result<()> {
    let target = root.resolve(path, WRITE)?;
    publish(&target, Expect::Any, None, None, |out| {
        out.write_all(bytes)
            .map_err(|e| filekeeper_plumbing::Error::storage("writing", &e))
    })
    .map(|_| ())
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

/// A second thread keeps exchanging `dir` with a symlink to outside (`renameat2` with
/// RENAME_EXCHANGE, so the swap is instantaneous) while this thread reads and writes through
/// `dir`. Every call must either work inside the root or be refused; nothing outside may ever
/// be read or written.
#[test]
fn a_racing_swap_of_a_directory_for_a_symlink_never_reaches_outside() {
    let t = tree();
    symlink(&t.outside, t.root.join("swap")).unwrap();
    let before = snapshot(&t.outside);
    let root = Root::open(&t.root).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let stop = Arc::clone(&stop);
        let ws = t.root.clone();
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    ws.join("dir").as_path(),
                    rustix::fs::CWD,
                    ws.join("swap").as_path(),
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut reads_ok, mut writes_ok, mut refused) = (0u32, 0u32, 0u32);
    for i in 0..5000 {
        match root
            .resolve("dir/file.txt", READ)
            .and_then(|r| r.open_file())
        {
            Ok(mut f) => {
                let mut s = String::new();
                f.read_to_string(&mut s).unwrap();
                assert_eq!(s, "inside", "read reached outside on iteration {i}");
                reads_ok += 1;
            }
            Err(e) => {
                assert!(
                    matches!(
                        e.code,
                        Code::SymlinkEscapeRefused | Code::PathNotFound | Code::SymlinkWriteRefused
                    ),
                    "unexpected {e}"
                );
                refused += 1;
            }
        }
        match publish_bytes(&root, "dir/new.txt", b"written") {
            Ok(()) => writes_ok += 1,
            Err(e) => {
                assert!(
                    matches!(e.code, Code::SymlinkEscapeRefused | Code::PathNotFound),
                    "unexpected {e}"
                );
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = attacker.join().unwrap();
    assert_eq!(
        snapshot(&t.outside),
        before,
        "something outside the root changed"
    );
    assert!(swaps > 100, "the attacker barely ran ({swaps} swaps)");
    assert!(
        reads_ok > 0 && writes_ok > 0,
        "no call ever succeeded: the race proves nothing"
    );
    assert!(refused > 0, "no call was ever refused: the race never hit");
}

#[test]
fn publish_replaces_atomically_and_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let t = tree();
    let path = t.root.join("dir/file.txt");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let root = Root::open(&t.root).unwrap();
    publish_bytes(&root, "dir/file.txt", b"replaced").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"replaced");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    let leftovers: Vec<_> = fs::read_dir(t.root.join("dir"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".fk-tmp-")
        })
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn publish_with_expect_absent_never_clobbers() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    let target = root.resolve("dir/fresh.txt", WRITE).unwrap();
    // Another process creates the file after resolution but before publication.
    fs::write(t.root.join("dir/fresh.txt"), "theirs").unwrap();
    let err = publish(&target, Expect::Absent, None, None, |out| {
        out.write_all(b"ours")
            .map_err(|e| filekeeper_plumbing::Error::storage("writing", &e))
    })
    .unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert_eq!(fs::read(t.root.join("dir/fresh.txt")).unwrap(), b"theirs");
}

#[test]
fn publish_refuses_bytes_that_differ_from_the_promised_content() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    let target = root.resolve("dir/file.txt", WRITE).unwrap();
    let promised = filekeeper_plumbing::ObjectId::of(b"promised");
    let err = publish(&target, Expect::Any, None, Some(promised), |out| {
        out.write_all(b"something else")
            .map_err(|e| filekeeper_plumbing::Error::storage("writing", &e))
    })
    .unwrap_err();
    assert_eq!(err.code, Code::StorageError);
    assert_eq!(fs::read(t.root.join("dir/file.txt")).unwrap(), b"inside");
    assert_eq!(
        fs::read_dir(t.root.join("dir")).unwrap().count(),
        2,
        "a temp file was left"
    );
}

#[test]
fn a_recorded_path_resolves_only_while_no_link_stands_on_it() {
    let t = tree();
    let root = Root::open(&t.root).unwrap();
    // Written otherwise but the same real path: still itself.
    assert_eq!(
        root.resolve_recorded("./dir//file.txt", WRITE).unwrap().rel,
        "dir/file.txt"
    );
    assert_eq!(root.resolve_recorded(".", READ).unwrap().rel, ".");
    // `dir` replaced by a link to another directory of the workspace: the recorded path now
    // leads to `other/file.txt`, which no record names.
    fs::rename(t.root.join("dir"), t.root.join("other")).unwrap();
    symlink("other", t.root.join("dir")).unwrap();
    assert_eq!(
        root.resolve("dir/file.txt", WRITE).unwrap().rel,
        "other/file.txt"
    );
    let err = root.resolve_recorded("dir/file.txt", WRITE).unwrap_err();
    assert_eq!(
        (err.code, err.details["path"].as_str()),
        (Code::ContentConflict, Some("dir/file.txt"))
    );
    assert!(root.resolve_recorded("dir/new.txt", WRITE).is_err());
    assert!(root.resolve_recorded("other/file.txt", WRITE).is_ok());
}

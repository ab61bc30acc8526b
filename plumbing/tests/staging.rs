//! A publication in two halves: `publish::stage` writes and fsyncs the new bytes as an unnamed
//! file beside the target, `Staged::finish` checks the expectation and renames it into place.
//! Until it is finished nothing is visible, and nothing is left when it is dropped.

use filekeeper_plumbing::publish::{Expect, Staged, stage};
use filekeeper_plumbing::resolve::{Intent, Resolved, Root};
use filekeeper_plumbing::{Code, ObjectId};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const WRITE: Intent = Intent::Write {
    allow_sensitive: false,
};

/// A workspace with `dir/file.txt` holding "old".
fn workspace() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("dir")).unwrap();
    fs::write(dir.path().join("dir/file.txt"), "old").unwrap();
    let root = Root::open(dir.path()).unwrap();
    (dir, root)
}

fn staged(root: &Root, path: &str, bytes: &[u8], mode: Option<u32>) -> (Resolved, Staged) {
    let target = root.resolve(path, WRITE).unwrap();
    let staged = stage(&target, mode, Some(ObjectId::of(bytes)), |out| {
        out.write_all(bytes)
            .map_err(|e| filekeeper_plumbing::Error::storage("writing", &e))
    })
    .unwrap()
    .expect("this filesystem makes unnamed files");
    (target, staged)
}

/// The names in a directory, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn staged_bytes_are_invisible_until_finished_then_replace_the_file() {
    let (dir, root) = workspace();
    let (target, staged) = staged(&root, "dir/file.txt", b"new", None);
    assert_eq!(names(&dir.path().join("dir")), ["file.txt"]);
    assert_eq!(fs::read(dir.path().join("dir/file.txt")).unwrap(), b"old");

    let published = staged
        .finish(&target, Expect::Hash(ObjectId::of(b"old")), None)
        .unwrap();
    assert_eq!(published.before_hash, Some(ObjectId::of(b"old")));
    assert_eq!(published.after_hash, ObjectId::of(b"new"));
    assert_eq!(published.size, 3);
    assert_eq!(fs::read(dir.path().join("dir/file.txt")).unwrap(), b"new");
    assert_eq!(
        names(&dir.path().join("dir")),
        ["file.txt"],
        "no temp file left"
    );
}

#[test]
fn a_staged_file_that_is_dropped_leaves_nothing() {
    let (dir, root) = workspace();
    let (_target, staged) = staged(&root, "dir/new.txt", b"never published", None);
    drop(staged);
    assert_eq!(names(&dir.path().join("dir")), ["file.txt"]);
}

#[test]
fn a_file_changed_after_staging_is_a_conflict_and_keeps_its_bytes() {
    let (dir, root) = workspace();
    let (target, staged) = staged(&root, "dir/file.txt", b"new", None);
    fs::write(dir.path().join("dir/file.txt"), "theirs").unwrap();
    let err = staged
        .finish(&target, Expect::Hash(ObjectId::of(b"old")), None)
        .unwrap_err();
    assert_eq!(err.code, Code::ContentConflict);
    assert_eq!(
        fs::read(dir.path().join("dir/file.txt")).unwrap(),
        b"theirs"
    );
    assert_eq!(names(&dir.path().join("dir")), ["file.txt"]);
}

#[test]
fn a_file_created_after_staging_a_creation_is_never_clobbered() {
    let (dir, root) = workspace();
    let (target, staged) = staged(&root, "dir/fresh.txt", b"ours", None);
    fs::write(dir.path().join("dir/fresh.txt"), "theirs").unwrap();
    let err = staged.finish(&target, Expect::Absent, None).unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert_eq!(
        fs::read(dir.path().join("dir/fresh.txt")).unwrap(),
        b"theirs"
    );
    assert_eq!(names(&dir.path().join("dir")), ["file.txt", "fresh.txt"]);
}

#[test]
fn the_file_keeps_the_mode_its_target_has_when_finished() {
    let (dir, root) = workspace();
    let path = dir.path().join("dir/file.txt");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let (target, staged) = staged(&root, "dir/file.txt", b"new", None);
    // Someone changes the mode between staging and the rename: the new one is kept.
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let published = staged.finish(&target, Expect::Any, None).unwrap();
    assert_eq!(published.after_mode, 0o600);
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn a_mode_given_when_staging_wins_over_the_targets() {
    let (dir, root) = workspace();
    let path = dir.path().join("dir/file.txt");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let (target, staged) = staged(&root, "dir/file.txt", b"new", Some(0o755));
    let published = staged.finish(&target, Expect::Any, Some(0o755)).unwrap();
    assert_eq!(published.after_mode, 0o755);
    assert_eq!(mode(&path), 0o755);
}

#[test]
fn bytes_that_differ_from_the_promised_content_are_never_staged() {
    let (dir, root) = workspace();
    let target = root.resolve("dir/file.txt", WRITE).unwrap();
    let err = stage(&target, None, Some(ObjectId::of(b"promised")), |out| {
        out.write_all(b"something else")
            .map_err(|e| filekeeper_plumbing::Error::storage("writing", &e))
    })
    .unwrap_err();
    assert_eq!(err.code, Code::StorageError);
    assert_eq!(names(&dir.path().join("dir")), ["file.txt"]);
}

#[test]
fn a_directory_cannot_be_staged_over() {
    let (_dir, root) = workspace();
    let target = root.resolve("dir", WRITE).unwrap();
    let err = stage(&target, None, None, |_| Ok(())).unwrap_err();
    assert_eq!(err.code, Code::NotAFile);
}

#[test]
fn a_staged_file_belongs_to_its_directory_not_to_a_new_one_under_the_same_name() {
    let (dir, root) = workspace();
    let (target, staged) = staged(&root, "dir/file.txt", b"new", None);
    assert!(staged.is_beside(&target));
    // Another process moves the directory away and makes a new one in its place.
    fs::rename(dir.path().join("dir"), dir.path().join("moved")).unwrap();
    fs::create_dir(dir.path().join("dir")).unwrap();
    fs::write(dir.path().join("dir/file.txt"), "theirs").unwrap();
    let now = root.resolve("dir/file.txt", WRITE).unwrap();
    assert!(!staged.is_beside(&now));
    let err = staged.finish(&now, Expect::Any, None).unwrap_err();
    assert_eq!(err.code, Code::InternalError);
    assert_eq!(
        fs::read(dir.path().join("dir/file.txt")).unwrap(),
        b"theirs"
    );
    assert_eq!(fs::read(dir.path().join("moved/file.txt")).unwrap(), b"old");
    assert_eq!(names(&dir.path().join("moved")), ["file.txt"]);
    assert_eq!(names(&dir.path().join("dir")), ["file.txt"]);
}

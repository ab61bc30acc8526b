//! The confined tree walk: order, skipped paths, links, depth, ignore rules.

use filekeeper_plumbing::resolve::{Intent, Root};
use filekeeper_plumbing::walk::{EntryKind, WalkOptions, walk};
use std::fs;
use std::os::unix::fs::symlink;

fn tree() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for d in ["b/deep/deeper", "a", ".filekeeper/objects", ".git/objects"] {
        fs::create_dir_all(ws.join(d)).unwrap();
    }
    for f in [
        "z.txt",
        "a/1.txt",
        "b/2.log",
        "b/deep/3.txt",
        "b/deep/deeper/4.txt",
        ".git/HEAD",
    ] {
        fs::write(ws.join(f), f).unwrap();
    }
    fs::create_dir(dir.path().join("outside")).unwrap();
    fs::write(dir.path().join("outside/secret.txt"), "x").unwrap();
    symlink(dir.path().join("outside"), ws.join("out")).unwrap();
    symlink("a", ws.join("alias")).unwrap();
    let root = Root::open(&ws).unwrap();
    (dir, root)
}

fn paths(root: &Root, start: &str, options: WalkOptions) -> Vec<(String, EntryKind)> {
    let start = root.resolve(start, Intent::Read).unwrap();
    walk(root, &start, options)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.rel, e.kind)
        })
        .collect()
}

const ALL: WalkOptions = WalkOptions {
    recursive: true,
    max_depth: 64,
    respect_ignore: false,
};

#[test]
fn walks_sorted_pre_order_without_state_or_following_links() {
    let (_dir, root) = tree();
    let got: Vec<String> = paths(&root, ".", ALL).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        got,
        [
            ".git",
            ".git/HEAD",
            ".git/objects",
            "a",
            "a/1.txt",
            "alias",
            "b",
            "b/2.log",
            "b/deep",
            "b/deep/3.txt",
            "b/deep/deeper",
            "b/deep/deeper/4.txt",
            "out",
            "z.txt"
        ]
    );
    let kinds = paths(&root, ".", ALL);
    assert!(kinds.contains(&("out".to_owned(), EntryKind::Symlink)));
    assert!(kinds.contains(&("alias".to_owned(), EntryKind::Symlink)));
}

#[test]
fn depth_bound_stops_descent_and_says_so() {
    let (_dir, root) = tree();
    let start = root.resolve("b", Intent::Read).unwrap();
    let mut w = walk(
        &root,
        &start,
        WalkOptions {
            max_depth: 2,
            ..ALL
        },
    )
    .unwrap();
    let got: Vec<String> = w.by_ref().map(|e| e.unwrap().rel).collect();
    assert_eq!(got, ["b/2.log", "b/deep", "b/deep/3.txt", "b/deep/deeper"]);
    assert!(w.depth_limited);
}

#[test]
fn ignore_rules_and_git_directory_for_searches() {
    let (dir, root) = tree();
    let ws = dir.path().join("ws");
    fs::write(ws.join(".gitignore"), "*.log\n").unwrap();
    fs::write(ws.join("b/deep/.gitignore"), "deeper/\n").unwrap();
    let start = root.resolve(".", Intent::Read).unwrap();
    let mut w = walk(
        &root,
        &start,
        WalkOptions {
            respect_ignore: true,
            ..ALL
        },
    )
    .unwrap();
    let got: Vec<String> = w.by_ref().map(|e| e.unwrap().rel).collect();
    assert!(!got.iter().any(|p| p.starts_with(".git/") || p == ".git"));
    assert!(!got.contains(&"b/2.log".to_owned()));
    assert!(!got.iter().any(|p| p.contains("deeper")));
    assert!(got.contains(&"b/deep/3.txt".to_owned()));
    assert_eq!(w.ignored, 2);
}

#[test]
fn a_walk_started_in_a_subdirectory_applies_the_ignore_files_above_it() {
    let (dir, root) = tree();
    fs::write(dir.path().join("ws/.gitignore"), "3.txt\n").unwrap();
    let got: Vec<String> = paths(
        &root,
        "b/deep",
        WalkOptions {
            respect_ignore: true,
            ..ALL
        },
    )
    .into_iter()
    .map(|(p, _)| p)
    .collect();
    assert_eq!(got, ["b/deep/deeper", "b/deep/deeper/4.txt"]);
}

#[test]
fn escaped_names_are_distinct_and_readable() {
    use filekeeper_plumbing::walk::escape_name;
    assert_eq!(escape_name(b"bad\xff.txt"), "bad\\xff.txt");
    assert_eq!(escape_name(b"bad\\xff.txt"), "bad\\\\xff.txt");
    assert_eq!(escape_name("caf\u{e9}".as_bytes()), "caf\u{e9}");
    assert_eq!(escape_name(b"a\xc3"), "a\\xc3");
}

#[test]
fn a_name_that_is_not_utf8_ends_a_walk_unless_reported() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir_all(ws.join("t/sub")).unwrap();
    fs::write(ws.join("t/a.txt"), "a").unwrap();
    fs::write(ws.join("t/sub").join(OsStr::from_bytes(b"bad\xff")), "x").unwrap();
    fs::write(ws.join("t/z.txt"), "z").unwrap();
    let root = Root::open(&ws).unwrap();
    let start = root.resolve("t", Intent::Read).unwrap();
    let options = WalkOptions {
        recursive: true,
        max_depth: 64,
        respect_ignore: false,
    };
    let err = walk(&root, &start, options)
        .unwrap()
        .find_map(|e| e.err())
        .expect("the walk refuses the name");
    assert_eq!(err.code, filekeeper_plumbing::Code::InvalidArgument);
    assert_eq!(err.details["entry"], "t/sub/bad\\xff");
    assert_eq!(err.details["path"], "t");

    let mut reported = walk(&root, &start, options).unwrap();
    reported.report_non_utf8_names();
    let rels: Vec<String> = reported.by_ref().map(|e| e.unwrap().rel).collect();
    assert_eq!(rels, ["t/a.txt", "t/sub", "t/z.txt"]);
    assert_eq!(reported.non_utf8_names, ["t/sub/bad\\xff"]);
}

/// A tree wide and deep enough that helpers read ahead of the walk: 12 directories of 12 of
/// 6 files, ignore files at three levels, a `.git`, a name that is not UTF-8.
fn wide_tree() -> (tempfile::TempDir, Root) {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for a in 0..12 {
        for b in 0..12 {
            let d = ws.join(format!("d{a:02}/e{b:02}"));
            fs::create_dir_all(d.join("sub")).unwrap();
            for c in 0..6 {
                fs::write(d.join(format!("f{c}.txt")), "x").unwrap();
            }
            fs::write(d.join("sub/s.log"), "x").unwrap();
        }
    }
    fs::write(ws.join(".gitignore"), "*.log\n").unwrap();
    fs::write(ws.join("d03/.gitignore"), "e0*/\n!e05/\n").unwrap();
    fs::write(ws.join("d07/e07/.gitignore"), "f1.txt\nsub\n").unwrap();
    fs::create_dir_all(ws.join(".git/objects/ab")).unwrap();
    fs::create_dir_all(ws.join(".filekeeper/objects/cd")).unwrap();
    fs::create_dir(ws.join("d05").join(std::ffi::OsStr::from_bytes(b"bad\xff"))).unwrap();
    let root = Root::open(&ws).unwrap();
    (dir, root)
}

/// Everything a walk reports, to compare two walks by: the entries (path, depth, kind), the
/// ignored count, whether the depth bound stopped it, and the names that are not UTF-8.
type Report = (Vec<(String, usize, EntryKind)>, u64, bool, Vec<String>);

fn everything(
    root: &Root,
    start: &str,
    options: WalkOptions,
    resume: Option<&str>,
    ahead: bool,
) -> Report {
    let start = root.resolve(start, Intent::Read).unwrap();
    let mut walk = walk(root, &start, options).unwrap();
    walk.report_non_utf8_names();
    if let Some(rel) = resume {
        walk.resume_after(rel, false);
    }
    if ahead {
        walk.read_ahead();
    }
    let entries = walk
        .by_ref()
        .map(|e| {
            let e = e.unwrap();
            (e.rel, e.depth, e.kind)
        })
        .collect();
    (
        entries,
        walk.ignored,
        walk.depth_limited,
        walk.non_utf8_names.clone(),
    )
}

#[test]
fn reading_ahead_changes_nothing_a_walk_reports() {
    let (_dir, root) = wide_tree();
    for respect_ignore in [false, true] {
        for max_depth in [1, 2, 3, 64] {
            let options = WalkOptions {
                recursive: true,
                max_depth,
                respect_ignore,
            };
            for (start, resume) in [
                (".", None),
                (".", Some("d03/e05/f2.txt")),
                (".", Some("d07")),
                ("d03", None),
                ("d07/e07", None),
            ] {
                let alone = everything(&root, start, options, resume, false);
                let ahead = everything(&root, start, options, resume, true);
                assert!(!alone.0.is_empty() || max_depth == 1);
                assert_eq!(
                    alone, ahead,
                    "ignore {respect_ignore}, depth {max_depth}, from {start}, after {resume:?}"
                );
            }
        }
    }
}

#[test]
fn a_walk_reading_ahead_can_be_left_early() {
    let (_dir, root) = wide_tree();
    for taken in [0, 1, 50, 700] {
        let start = root.resolve(".", Intent::Read).unwrap();
        let mut walk = walk(&root, &start, ALL).unwrap();
        walk.report_non_utf8_names();
        walk.read_ahead();
        let got: Vec<String> = walk.by_ref().take(taken).map(|e| e.unwrap().rel).collect();
        assert_eq!(got.len(), taken);
        drop(walk);
    }
}

/// More directories in one than the read-ahead keeps read at once (128), so its helpers stop
/// and wait while the walk catches up, and the walk reads some itself.
#[test]
fn reading_ahead_a_directory_of_many_directories_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for n in 0..400 {
        let d = ws.join(format!("{n:03}"));
        fs::create_dir_all(d.join("inner")).unwrap();
        fs::write(d.join("inner/f.txt"), "x").unwrap();
    }
    let root = Root::open(&ws).unwrap();
    let alone = everything(&root, ".", ALL, None, false);
    assert_eq!(alone.0.len(), 1200);
    assert_eq!(alone, everything(&root, ".", ALL, None, true));
}

/// A FIFO named `.gitignore` is not waited on (nothing would ever write to it): the walk goes
/// on as if the directory had no ignore file, with the read-ahead's helpers as without.
#[test]
fn a_fifo_named_gitignore_does_not_stall_a_walk() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir_all(ws.join("d/e")).unwrap();
    fs::write(ws.join("d/e/f.txt"), "x").unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.join("d/.gitignore").as_path(),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let root = Root::open(&ws).unwrap();
    let options = WalkOptions {
        recursive: true,
        max_depth: 64,
        respect_ignore: true,
    };
    for ahead in [false, true] {
        let (entries, ..) = everything(&root, ".", options, None, ahead);
        let paths: Vec<&str> = entries.iter().map(|(p, ..)| p.as_str()).collect();
        assert_eq!(
            paths,
            ["d", "d/.gitignore", "d/e", "d/e/f.txt"],
            "ahead {ahead}"
        );
    }
}

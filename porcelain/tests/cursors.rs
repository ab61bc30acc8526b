//! Cursors through the library: following `next_cursor` page by page gives exactly the
//! unpaged answer, and changes between pages before or after the cursor neither repeat nor
//! skip an entry that was there throughout.

use filekeeper::{Filekeeper, GrepOptions, HistoryFilter, ListOptions, MutationOptions, Workspace};
use std::fs;
use std::path::Path;

fn open(root: &Path, home: &Path) -> Workspace {
    Filekeeper::new(Some(home))
        .unwrap()
        .workspace(None, Some(root))
        .unwrap()
}

/// Names whose walk order differs from the order of their paths as strings: `a-c` sorts
/// before `a/x` as text, but the walk gives `a` and everything below it first.
fn tree(root: &Path) {
    for dir in ["a", "a/b", "a-c", "b", "b/deep/er"] {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
    for file in [
        "a/x.txt",
        "a/b/y.txt",
        "a-c/z.txt",
        "a.txt",
        "b/deep/er/w.txt",
        "b/v.txt",
        "c.txt",
    ] {
        fs::write(root.join(file), "needle one\nhay\nneedle two\n").unwrap();
    }
}

fn list_pages(ws: &Workspace, size: u64) -> Vec<String> {
    let mut cursor = None;
    let mut paths = Vec::new();
    loop {
        let options = ListOptions {
            recursive: true,
            max_entries: Some(size),
            cursor: cursor.take(),
            ..ListOptions::default()
        };
        let page = ws.list(None, &options).unwrap();
        paths.extend(page.entries.into_iter().map(|e| e.path));
        assert_eq!(page.truncated, page.next_cursor.is_some());
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return paths,
        }
    }
}

#[test]
fn list_search_and_grep_pages_make_the_whole_answer() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    tree(&root);
    let ws = open(&root, &dir.path().join("home"));
    let whole: Vec<String> = ws
        .list(
            None,
            &ListOptions {
                recursive: true,
                ..ListOptions::default()
            },
        )
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.path)
        .collect();
    for size in [1, 2, 3, 5, 100] {
        assert_eq!(list_pages(&ws, size), whole, "pages of {size}");
    }

    let whole = ws.search(".", "*.txt", None, None).unwrap();
    let (mut cursor, mut paths) = (None::<String>, Vec::new());
    loop {
        let page = ws.search(".", "*.txt", Some(2), cursor.as_deref()).unwrap();
        paths.extend(page.entries.into_iter().map(|e| e.path));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let expected: Vec<String> = whole.entries.into_iter().map(|e| e.path).collect();
    assert_eq!(paths, expected);

    // Two matches per file: pages of three end in the middle of a file.
    let whole = ws.grep(".", "needle", &GrepOptions::default()).unwrap();
    let (mut cursor, mut lines) = (None::<String>, Vec::new());
    loop {
        let options = GrepOptions {
            max_results: Some(3),
            cursor: cursor.take(),
            ..GrepOptions::default()
        };
        let page = ws.grep(".", "needle", &options).unwrap();
        lines.extend(page.matches.into_iter().map(|m| (m.path, m.line)));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let expected: Vec<(String, u64)> = whole
        .matches
        .into_iter()
        .map(|m| (m.path, m.line))
        .collect();
    assert_eq!(lines.len(), 14);
    assert_eq!(lines, expected);
    assert!(
        !root.join(".filekeeper").exists(),
        "a read creates no state"
    );
}

#[test]
fn entries_added_or_removed_between_pages_shift_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    tree(&root);
    let ws = open(&root, &dir.path().join("home"));
    let options = |cursor| ListOptions {
        recursive: true,
        max_entries: Some(4),
        cursor,
        ..ListOptions::default()
    };
    let first = ws.list(None, &options(None)).unwrap();
    let seen: Vec<String> = first.entries.iter().map(|e| e.path.clone()).collect();
    assert_eq!(seen, ["a", "a/b", "a/b/y.txt", "a/x.txt"]);
    // Before the cursor: one removed, one added; after it: one removed, one added.
    fs::remove_file(root.join("a/b/y.txt")).unwrap();
    fs::write(root.join("a/a0.txt"), "").unwrap();
    fs::remove_file(root.join("b/v.txt")).unwrap();
    fs::write(root.join("b/u.txt"), "").unwrap();
    let second = ws.list(None, &options(first.next_cursor)).unwrap();
    let rest: Vec<String> = second.entries.iter().map(|e| e.path.clone()).collect();
    assert_eq!(rest, ["a-c", "a-c/z.txt", "a.txt", "b"]);
    let third = ws.list(None, &options(second.next_cursor)).unwrap();
    let rest: Vec<String> = third.entries.iter().map(|e| e.path.clone()).collect();
    assert_eq!(rest, ["b/deep", "b/deep/er", "b/deep/er/w.txt", "b/u.txt"]);
    // The entry the cursor names may itself be gone: the next page starts after its place.
    let fourth = ws.list(None, &options(third.next_cursor)).unwrap();
    assert_eq!(fourth.entries.len(), 1);
    assert_eq!(fourth.entries[0].path, "c.txt");
    assert!(!fourth.truncated && fourth.next_cursor.is_none());
}

#[test]
fn the_whole_ledger_is_read_page_by_page() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir_all(&root).unwrap();
    let ws = open(&root, &dir.path().join("home"));
    let write = MutationOptions::default();
    for i in 0..230 {
        ws.write_file("log.txt", format!("{i}\n").as_bytes(), None, false, &write)
            .unwrap();
    }
    let (mut cursor, mut seqs) = (None, Vec::new());
    loop {
        let page = ws
            .list_history(&HistoryFilter {
                limit: Some(200),
                cursor: cursor.take(),
                ..HistoryFilter::default()
            })
            .unwrap();
        seqs.extend(page.operations.iter().map(|op| op.operation.head.seq));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seqs.len(), 230);
    assert!(
        seqs.windows(2).all(|w| w[0] > w[1]),
        "newest first, no repeat"
    );
}

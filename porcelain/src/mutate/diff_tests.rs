//! The diffs every mutation's result carries: one per item, from the bytes the plan holds.

use super::*;
use crate::{EditGuards, Filekeeper, Policy};
use std::fs;

/// A workspace whose home's `config.toml` holds `config` under `[filekeeper]`.
fn workspace_with(config: &str) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    fs::create_dir(&root).unwrap();
    let home = dir.path().join("home");
    fs::create_dir(&home).unwrap();
    fs::write(home.join("config.toml"), format!("[filekeeper]\n{config}")).unwrap();
    let ws = Filekeeper::new(Some(&home))
        .unwrap()
        .workspace(None, Some(&root))
        .unwrap();
    (dir, ws)
}

fn workspace() -> (tempfile::TempDir, Workspace) {
    workspace_with("")
}

fn put(dir: &tempfile::TempDir, path: &str, bytes: &[u8]) {
    let path = dir.path().join("ws").join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Each diff as (path, diff_kind, diff).
fn kinds(result: &MutationResult) -> Vec<(&str, &str, Option<&str>)> {
    result
        .diffs
        .iter()
        .map(|d| (d.path.as_str(), d.diff_kind, d.diff.as_deref()))
        .collect()
}

fn opts() -> MutationOptions {
    MutationOptions::default()
}

#[test]
fn an_edit_shows_its_diff_with_its_counts() {
    let (dir, ws) = workspace();
    put(&dir, "a.txt", b"one\ntwo\nthree\nfour\n");
    let result = ws
        .replace_text(
            "a.txt",
            "two\n",
            "2\nzwei\n",
            Policy::First,
            None,
            &EditGuards::default(),
            &opts(),
        )
        .unwrap();
    assert_eq!(result.diffs.len(), 1);
    let diff = &result.diffs[0];
    assert_eq!(
        (diff.path.as_str(), diff.change.as_str(), diff.kind),
        ("a.txt", "modified", "file")
    );
    assert_eq!(diff.diff_kind, "text");
    assert_eq!(
        diff.diff.as_deref(),
        Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,4 +1,5 @@\n one\n-two\n+2\n+zwei\n three\n four\n")
    );
    assert_eq!((diff.lines_added, diff.lines_removed), (Some(2), Some(1)));
    assert!(!result.diff_truncated);
}

#[test]
fn a_dry_run_shows_the_diff_a_real_run_gives_beside_its_preview() {
    let (dir, ws) = workspace();
    put(&dir, "a.txt", b"a\nb\n");
    let dry = ws
        .write_file(
            "a.txt",
            b"a\nB\n",
            None,
            false,
            &MutationOptions {
                dry_run: true,
                ..opts()
            },
        )
        .unwrap();
    assert!(dry.preview_diff.as_deref().unwrap().contains("+B\n"));
    let real = ws
        .write_file("a.txt", b"a\nB\n", None, false, &opts())
        .unwrap();
    assert_eq!(kinds(&dry), kinds(&real));
    assert_eq!(
        real.diffs[0].diff.as_deref(),
        Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n")
    );
    assert!(real.preview_diff.is_none());
}

#[test]
fn a_create_and_a_delete_diff_against_dev_null() {
    let (_dir, ws) = workspace();
    let created = ws.create_file("n.txt", b"x\ny\n", false, &opts()).unwrap();
    assert_eq!(
        kinds(&created),
        [(
            "n.txt",
            "text",
            Some("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n")
        )]
    );
    let deleted = ws.delete_file("n.txt", None, &opts()).unwrap();
    assert_eq!(
        kinds(&deleted),
        [(
            "n.txt",
            "text",
            Some("--- a/n.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n")
        )]
    );
    // An empty file has no lines to show: its headers say what happened.
    let empty = ws.create_file("e.txt", b"", false, &opts()).unwrap();
    assert_eq!(
        kinds(&empty),
        [("e.txt", "text", Some("--- /dev/null\n+++ b/e.txt\n"))]
    );
    assert_eq!(
        (empty.diffs[0].lines_added, empty.diffs[0].lines_removed),
        (Some(0), Some(0))
    );
}

#[test]
fn binary_content_is_named_not_diffed() {
    let (dir, ws) = workspace();
    put(&dir, "logo.png", b"\x89PNG\r\n\x1a\n\0\0\0");
    let result = ws
        .write_file(
            "logo.png",
            b"\x89PNG\r\n\x1a\n\0\0\x01",
            None,
            false,
            &opts(),
        )
        .unwrap();
    assert_eq!(kinds(&result), [("logo.png", "binary", None)]);
    assert_eq!(result.diffs[0].lines_added, None);
    // Text becoming binary is binary too: one side is enough.
    put(&dir, "t.txt", b"text\n");
    let result = ws
        .write_file("t.txt", b"\xff\xfe", None, false, &opts())
        .unwrap();
    assert_eq!(kinds(&result), [("t.txt", "binary", None)]);
}

#[test]
fn a_crlf_file_keeps_its_line_ends_in_the_diff() {
    let (dir, ws) = workspace();
    put(&dir, "w.txt", b"one\r\ntwo\r\nthree\r\n");
    let result = ws
        .replace_lines("w.txt", 2, 2, "2\n", &EditGuards::default(), &opts())
        .unwrap();
    assert_eq!(
        fs::read(dir.path().join("ws/w.txt")).unwrap(),
        b"one\r\n2\r\nthree\r\n"
    );
    assert_eq!(
        result.diffs[0].diff.as_deref(),
        Some("--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n one\r\n-two\r\n+2\r\n three\r\n")
    );
}

#[test]
fn an_unchanged_write_and_a_directory_are_named() {
    let (dir, ws) = workspace();
    put(&dir, "same.txt", b"same\n");
    let result = ws
        .write_file("same.txt", b"same\n", None, false, &opts())
        .unwrap();
    assert_eq!(kinds(&result), [("same.txt", "unchanged", None)]);
    let result = ws.create_dir("d/e", true, &opts()).unwrap();
    assert_eq!(
        kinds(&result),
        [("d", "directory", None), ("d/e", "directory", None)]
    );
}

#[test]
fn a_patch_shows_every_file_it_changes() {
    let (dir, ws) = workspace();
    put(&dir, "a.txt", b"a1\na2\na3\n");
    put(&dir, "old.txt", b"o1\no2\no3\n");
    put(&dir, "gone/g.txt", b"g\n");
    let patch = "\
diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 a1
-a2
+A2
 a3
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+fresh
diff --git a/old.txt b/renamed.txt
similarity index 66%
rename from old.txt
rename to renamed.txt
--- a/old.txt
+++ b/renamed.txt
@@ -1,3 +1,3 @@
 o1
-o2
+O2
 o3
diff --git a/gone/g.txt b/gone/g.txt
deleted file mode 100644
--- a/gone/g.txt
+++ /dev/null
@@ -1 +0,0 @@
-g
";
    let result = ws.apply_patch(patch, &opts()).unwrap();
    assert_eq!(result.diffs.len(), result.items.len());
    for (diff, item) in result.diffs.iter().zip(&result.items) {
        assert_eq!((&diff.path, &diff.change), (&item.path, &item.change));
    }
    let by_path = |path: &str| {
        let d = result.diffs.iter().find(|d| d.path == path).unwrap();
        (d.diff_kind, d.diff.as_deref())
    };
    assert_eq!(
        by_path("a.txt"),
        (
            "text",
            Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a1\n-a2\n+A2\n a3\n")
        )
    );
    assert_eq!(
        by_path("new.txt"),
        (
            "text",
            Some("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n")
        )
    );
    // A file renamed with changes is diffed against its source, which is named only.
    assert_eq!(
        by_path("renamed.txt"),
        (
            "text",
            Some("--- a/old.txt\n+++ b/renamed.txt\n@@ -1,3 +1,3 @@\n o1\n-o2\n+O2\n o3\n")
        )
    );
    assert_eq!(by_path("old.txt"), ("moved", None));
    assert_eq!(
        by_path("gone/g.txt"),
        (
            "text",
            Some("--- a/gone/g.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n")
        )
    );
    // The directory the deletion emptied is removed, and named.
    assert_eq!(by_path("gone"), ("directory", None));
    assert!(!result.diff_truncated);
}

#[test]
fn moves_are_named_and_a_replaced_destination_is_diffed() {
    let (dir, ws) = workspace();
    put(&dir, "a.txt", b"from a\n");
    let result = ws.move_file("a.txt", "b.txt", false, &opts()).unwrap();
    assert_eq!(
        kinds(&result),
        [("a.txt", "moved", None), ("b.txt", "moved", None)]
    );
    put(&dir, "c.txt", b"from c\n");
    let result = ws.move_file("b.txt", "c.txt", true, &opts()).unwrap();
    assert_eq!(
        kinds(&result),
        [
            ("b.txt", "moved", None),
            (
                "c.txt",
                "text",
                Some("--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-from c\n+from a\n")
            )
        ]
    );
    put(&dir, "d/x.txt", b"x\n");
    let result = ws.move_dir("d", "e", &opts()).unwrap();
    assert_eq!(
        kinds(&result),
        [
            ("d", "directory", None),
            ("d/x.txt", "moved", None),
            ("e", "directory", None),
            ("e/x.txt", "moved", None)
        ]
    );
}

#[test]
fn a_recursive_delete_shows_each_files_removal() {
    let (dir, ws) = workspace();
    put(&dir, "t/a.txt", b"a\n");
    put(&dir, "t/b.bin", b"\0");
    let result = ws.delete_dir("t", true, &opts()).unwrap();
    assert_eq!(
        kinds(&result),
        [
            (
                "t/a.txt",
                "text",
                Some("--- a/t/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
            ),
            ("t/b.bin", "binary", None),
            ("t", "directory", None)
        ]
    );
}

#[test]
fn an_undo_shows_the_change_it_reverses() {
    let (dir, ws) = workspace();
    put(&dir, "a.txt", b"old\n");
    let write = ws
        .write_file("a.txt", b"new\n", None, false, &opts())
        .unwrap();
    let undo = ws
        .undo(write.operation_id.as_deref().unwrap(), &opts())
        .unwrap();
    assert_eq!(
        kinds(&undo),
        [(
            "a.txt",
            "text",
            Some("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-new\n+old\n")
        )]
    );
    // Undoing a creation deletes, from the stored content.
    let create = ws.create_file("c.txt", b"c\n", false, &opts()).unwrap();
    let undo = ws
        .undo(create.operation_id.as_deref().unwrap(), &opts())
        .unwrap();
    assert_eq!(
        kinds(&undo),
        [(
            "c.txt",
            "text",
            Some("--- a/c.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-c\n")
        )]
    );
    // Undoing a move moves back.
    let moved = ws.move_file("a.txt", "b.txt", false, &opts()).unwrap();
    let undo = ws.undo_last(None, &opts()).unwrap();
    assert_eq!(undo.extra.skipped_operations, Some(Vec::new()));
    assert_eq!(moved.diffs.len(), 2);
    assert_eq!(
        kinds(&undo),
        [("b.txt", "moved", None), ("a.txt", "moved", None)]
    );
    // A dry run of an undo shows the same.
    let write = ws
        .write_file("a.txt", b"newer\n", None, false, &opts())
        .unwrap();
    let dry = ws
        .undo(
            write.operation_id.as_deref().unwrap(),
            &MutationOptions {
                dry_run: true,
                ..opts()
            },
        )
        .unwrap();
    assert_eq!(
        kinds(&dry),
        [(
            "a.txt",
            "text",
            Some("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-newer\n+old\n")
        )]
    );
}

#[test]
fn the_result_is_cut_at_max_diff_bytes_and_the_rest_omitted() {
    let (dir, ws) = workspace_with("max_diff_bytes = 200\n");
    let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
    put(&dir, "one.txt", long.as_bytes());
    put(&dir, "two.txt", long.as_bytes());
    put(&dir, "two.bin", b"\0");
    let patch = format!(
        "--- a/one.txt\n+++ /dev/null\n@@ -1,100 +0,0 @@\n{0}--- a/two.txt\n+++ /dev/null\n@@ -1,100 +0,0 @@\n{0}",
        long.lines().map(|l| format!("-{l}\n")).collect::<String>()
    );
    let result = ws.apply_patch(&patch, &opts()).unwrap();
    assert!(result.diff_truncated);
    let first = &result.diffs[0];
    assert_eq!((first.path.as_str(), first.diff_kind), ("one.txt", "text"));
    let text = first.diff.as_deref().unwrap();
    let (kept, note) = text.split_at(text.find("... diff cut here").unwrap());
    // Whole lines of the diff, as many as fit the bound: the next would not.
    assert!(kept.starts_with("--- a/one.txt\n+++ /dev/null\n@@ -1,100 +0,0 @@\n-line 0\n"));
    assert!(kept.ends_with('\n') && kept.len() <= 200, "{kept:?}");
    let next = format!("-line {}\n", kept.lines().count() - 3);
    assert!(kept.len() + next.len() > 200, "{kept:?}");
    assert_eq!(
        note,
        "... diff cut here: a result shows at most max_diff_bytes (200) of diff\n"
    );
    // The counts are the whole diff's.
    assert_eq!(
        (first.lines_added, first.lines_removed),
        (Some(0), Some(100))
    );
    assert_eq!(kinds(&result)[1], ("two.txt", "omitted", None));
    // A write that is not cut is not marked.
    let small = ws.create_file("s.txt", b"s\n", false, &opts()).unwrap();
    assert!(!small.diff_truncated);
    assert_eq!(small.diffs[0].diff_kind, "text");
}

#[test]
fn no_diff_is_shown_at_max_diff_bytes_0() {
    let (_dir, ws) = workspace_with("max_diff_bytes = 0\n");
    let result = ws.create_file("s.txt", b"s\n", false, &opts()).unwrap();
    assert_eq!(kinds(&result), [("s.txt", "omitted", None)]);
    assert!(result.diff_truncated);
}

#[test]
fn a_file_above_max_diff_file_bytes_is_named_not_diffed() {
    let (dir, ws) = workspace_with("max_diff_file_bytes = 10\n");
    put(&dir, "big.txt", b"0123456789\n");
    put(&dir, "small.txt", b"0123\n");
    let big = ws
        .write_file("big.txt", b"short\n", None, false, &opts())
        .unwrap();
    assert_eq!(kinds(&big), [("big.txt", "too_large", None)]);
    let grown = ws
        .write_file("small.txt", b"0123456789\n", None, false, &opts())
        .unwrap();
    assert_eq!(kinds(&grown), [("small.txt", "too_large", None)]);
    // Above the history cap the old bytes are not held at all.
    let (dir, ws) = workspace_with("max_history_blob_bytes = 4\n");
    put(&dir, "h.txt", b"held? no\n");
    let result = ws
        .write_file("h.txt", b"x\n", None, false, &opts())
        .unwrap();
    assert_eq!(kinds(&result), [("h.txt", "too_large", None)]);
    assert!(!result.diff_truncated);
}

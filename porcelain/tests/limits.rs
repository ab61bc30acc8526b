//! Every way a request can be LIMIT_EXCEEDED carries the details `docs/errors.md` documents for
//! that code, read from its row of the table, so the code and the table cannot drift apart.

use filekeeper::{
    Code, DiffOptions, Error, Filekeeper, GrepOptions, HistoryFilter, ListOptions, MutationOptions,
    ReadBytesOptions, ReadOptions, Workspace,
};
use std::fs;

/// The `details.KEY` names the errors table gives in the row of `code`.
fn documented_details(code: Code) -> Vec<String> {
    let doc = include_str!("../../docs/errors.md");
    let row = doc
        .lines()
        .find(|l| l.starts_with(&format!("| `{}` |", code.as_str())))
        .expect("the code has a row");
    row.split("`details.")
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect()
        })
        .collect()
}

/// A workspace whose limits are tiny, so each can be reached with a few bytes.
fn workspace(tmp: &std::path::Path) -> Workspace {
    let home = tmp.join("home");
    fs::create_dir_all(&home).unwrap();
    fs::write(
        home.join("config.toml"),
        "[filekeeper]\nmax_read_bytes = 64\nmax_write_bytes = 64\nmax_read_many_paths = 2\n\
         max_directory_entries = 2\nmax_search_results = 2\nmax_history_entries = 2\n\
         max_patch_bytes = 64\nmax_recursion_depth = 2\n",
    )
    .unwrap();
    let root = tmp.join("ws");
    fs::create_dir_all(root.join("deep/a/b/c")).unwrap();
    fs::write(root.join("deep/a/b/c/f.txt"), "x\n").unwrap();
    fs::write(root.join("short.txt"), "short\n").unwrap();
    fs::write(root.join("long-line.txt"), format!("{}\n", "y".repeat(100))).unwrap();
    fs::write(
        root.join("middle-line.txt"),
        format!("{}\n", "m".repeat(40)),
    )
    .unwrap();
    Filekeeper::new(Some(&home))
        .unwrap()
        .workspace(None, Some(&root))
        .unwrap()
}

#[test]
fn every_limit_exceeded_carries_the_documented_details() {
    let keys = documented_details(Code::LimitExceeded);
    assert_eq!(keys, ["limit", "requested"], "the row changed: {keys:?}");
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let write = MutationOptions::default();
    let cases: Vec<(&str, Result<(), Error>)> = vec![
        (
            "read above max_read_bytes",
            ws.read_file(
                "short.txt",
                &ReadOptions {
                    max_bytes: Some(65),
                    ..Default::default()
                },
            )
            .map(drop),
        ),
        (
            "a line longer than a read may be",
            ws.read_file("long-line.txt", &ReadOptions::default())
                .map(drop),
        ),
        (
            "read-bytes above max_read_bytes",
            ws.read_bytes(
                "short.txt",
                &ReadBytesOptions {
                    length: Some(65),
                    ..Default::default()
                },
            )
            .map(drop),
        ),
        (
            "a diff bound above max_read_bytes",
            ws.diff_files(
                "short.txt",
                "short.txt",
                &DiffOptions {
                    max_bytes: Some(65),
                },
            )
            .map(drop),
        ),
        (
            "a file to diff above max_read_bytes",
            ws.diff_files("short.txt", "long-line.txt", &DiffOptions::default())
                .map(drop),
        ),
        (
            "read-many of too many paths",
            ws.read_many(
                &["a".into(), "b".into(), "c".into()],
                &ReadOptions::default(),
            )
            .map(drop),
        ),
        (
            "list above max_directory_entries",
            ws.list(
                None,
                &ListOptions {
                    max_entries: Some(3),
                    ..Default::default()
                },
            )
            .map(drop),
        ),
        ("search above max_search_results", {
            ws.search(".", "*", Some(3), None).map(drop)
        }),
        (
            "grep above max_search_results",
            ws.grep(
                ".",
                "x",
                &GrepOptions {
                    max_results: Some(3),
                    ..Default::default()
                },
            )
            .map(drop),
        ),
        (
            "history above max_history_entries",
            ws.list_history(&HistoryFilter {
                limit: Some(3),
                ..Default::default()
            })
            .map(drop),
        ),
        (
            "content above max_write_bytes",
            ws.write_file("big.txt", &[b'z'; 65], None, false, &write)
                .map(drop),
        ),
        (
            "a patch above max_patch_bytes",
            ws.apply_patch(&"#".repeat(65), &write).map(drop),
        ),
        (
            "a tree deeper than max_recursion_depth",
            ws.delete_dir("deep", true, &write).map(drop),
        ),
    ];
    for (what, outcome) in cases {
        let err = outcome.expect_err(what);
        assert_eq!(err.code, Code::LimitExceeded, "{what}: {err:?}");
        for key in &keys {
            assert!(
                err.details.contains_key(key),
                "{what}: no details.{key} in {err:?}"
            );
        }
        let (limit, requested) = (&err.details["limit"], &err.details["requested"]);
        assert!(
            requested.as_u64() > limit.as_u64(),
            "{what}: requested {requested} is not above limit {limit}"
        );
    }
}

#[test]
fn a_line_longer_than_the_ceiling_does_not_ask_for_a_larger_max_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let at_ceiling = ws
        .read_file("long-line.txt", &ReadOptions::default())
        .unwrap_err();
    let hint = at_ceiling.details["recovery"].as_str().unwrap();
    assert!(hint.contains("max_read_bytes"), "{hint}");
    assert!(!hint.starts_with("raise max_bytes"), "{hint}");
    let below = ws
        .read_file(
            "middle-line.txt",
            &ReadOptions {
                max_bytes: Some(10),
                ..Default::default()
            },
        )
        .unwrap_err();
    let hint = below.details["recovery"].as_str().unwrap();
    assert!(hint.starts_with("raise max_bytes"), "{hint}");
}

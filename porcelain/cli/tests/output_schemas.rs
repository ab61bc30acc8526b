//! Real `keeper --json` output validates against the published schemas.
//!
//! One session runs every command that prints a JSON document through the real binary, in
//! the variants that change a document's shape (a dry run, a truncated read, a path that
//! fails among several, a `--root` workspace, `hash-object` without a workspace), and
//! validates each document with a JSON Schema validator against its schema closed to
//! undeclared fields ([`filekeeper::schemas::closed`]). Every CLI schema and `error.json`
//! must have been exercised by the end, so a schema cannot drift from what is printed
//! without this failing.

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Session {
    _dir: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
    /// Outside the workspace: patch files and link targets.
    outside: PathBuf,
    schemas: BTreeMap<String, Value>,
    exercised: BTreeSet<String>,
}

impl Session {
    fn new() -> Session {
        let dir = tempfile::tempdir().unwrap();
        let (home, root, outside) = (
            dir.path().join("home"),
            dir.path().join("root"),
            dir.path().join("outside"),
        );
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(&outside).unwrap();
        Session {
            _dir: dir,
            home,
            root,
            outside,
            schemas: filekeeper::schemas::all().into_iter().collect(),
            exercised: BTreeSet::new(),
        }
    }

    /// `keeper --json ARGS` with `stdin`: the exit code and the one document on stdout.
    fn run(&self, args: &[&str], stdin: &[u8]) -> (i32, Value) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_keeper"))
            .arg("--json")
            .args(args)
            .env("FILEKEEPER_HOME", &self.home)
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let doc = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("keeper {args:?} printed no JSON document ({e}): {text}"));
        (out.status.code().unwrap(), doc)
    }

    fn validate(&mut self, schema: &str, args: &[&str], doc: &Value) {
        let closed = filekeeper::schemas::closed(
            self.schemas
                .get(schema)
                .unwrap_or_else(|| panic!("no schema {schema}")),
        );
        let validator = jsonschema::validator_for(&closed)
            .unwrap_or_else(|e| panic!("{schema} is not a valid schema: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "keeper {args:?} does not match {schema}:\n  {}\ndocument: {doc:#}",
            errors.join("\n  ")
        );
        self.exercised.insert(schema.to_owned());
    }

    /// Runs a command that must succeed with `exit` and validates it against `schema`.
    fn expect(&mut self, exit: i32, schema: &str, args: &[&str], stdin: &[u8]) -> Value {
        let (code, doc) = self.run(args, stdin);
        assert_eq!(code, exit, "keeper {args:?} exited {code}: {doc}");
        assert_eq!(doc["ok"], true, "keeper {args:?}: {doc}");
        self.validate(schema, args, &doc);
        doc
    }

    fn ok(&mut self, schema: &str, args: &[&str]) -> Value {
        self.expect(0, schema, args, b"")
    }

    /// Runs a command that must fail and validates it against `error.json`.
    fn fails(&mut self, code: &str, args: &[&str]) -> Value {
        let (exit, doc) = self.run(args, b"");
        assert_ne!(exit, 0, "keeper {args:?} succeeded: {doc}");
        assert_eq!(doc["error"]["code"], code, "keeper {args:?}: {doc}");
        self.validate("error.json", args, &doc);
        doc
    }

    fn path(&self, p: &Path) -> String {
        p.to_str().unwrap().to_owned()
    }
}

fn id(doc: &Value, field: &str) -> String {
    doc[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {doc}"))
        .to_owned()
}

#[test]
fn every_document_keeper_prints_matches_its_schema() {
    let mut s = Session::new();
    let root = s.path(&s.root);
    let (code, version) = s.run(&["--version"], b"");
    assert_eq!(code, 0);
    s.validate("cli/version.json", &["--version"], &version);

    s.ok("cli/init.json", &["init"]);
    s.ok(
        "cli/workspace-create.json",
        &["workspace", "create", "notes", &root],
    );
    s.ok("cli/workspace-use.json", &["workspace", "use", "notes"]);
    s.ok("cli/workspace-show.json", &["workspace", "show", "notes"]);
    s.ok("cli/workspace-list.json", &["workspace", "list"]);

    // Files: a create, a dry run (its preview fields), a whole write.
    s.ok(
        "cli/file-create.json",
        &["file", "create", "a.txt", "--content", "one\ntwo\nthree\n"],
    );
    let dry = s.ok(
        "cli/file-create.json",
        &["file", "create", "b.txt", "--content", "b\n", "--dry-run"],
    );
    assert_eq!(dry["would_change"], true);
    let write = s.ok(
        "cli/file-write.json",
        &[
            "file",
            "write",
            "a.txt",
            "--content",
            "one\ntwo\nthree\nfour\n",
        ],
    );

    // Reads: whole, truncated, several with one failing, and from a --root workspace.
    s.ok("cli/file-read.json", &["file", "read", "a.txt"]);
    let cut = s.ok(
        "cli/file-read.json",
        &["file", "read", "a.txt", "--max-bytes", "5"],
    );
    assert_eq!(cut["truncated"], true);
    let many = s.ok(
        "cli/file-read-many.json",
        &["file", "read-many", "a.txt", "missing.txt"],
    );
    assert_eq!(many["results"][1]["ok"], false);
    let rooted = s.ok(
        "cli/file-info.json",
        &["--root", &root, "file", "info", "."],
    );
    assert_eq!(rooted["workspace"], Value::Null);
    s.ok("cli/file-info.json", &["file", "info", "a.txt"]);
    s.ok("cli/file-hash.json", &["file", "hash", "a.txt"]);
    s.ok("cli/file-exists.json", &["file", "exists", "a.txt"]);
    s.expect(
        3,
        "cli/file-exists.json",
        &["file", "exists", "nothere"],
        b"",
    );

    // Listings, with a link inside the workspace and one leading out of it.
    std::os::unix::fs::symlink("a.txt", s.root.join("inside-link")).unwrap();
    std::os::unix::fs::symlink(&s.outside, s.root.join("outside-link")).unwrap();
    let listed = s.ok("cli/file-list.json", &["file", "list", "--recursive"]);
    assert!(listed["entries"].as_array().unwrap().len() >= 3);
    s.ok("cli/file-search.json", &["file", "search", ".", "*.txt"]);
    s.ok("cli/file-grep.json", &["file", "grep", ".", "two"]);
    let up = s.ok(
        "cli/file-find-up.json",
        &["file", "find-up", "inside-link", "a.txt"],
    );
    assert_eq!(up["kind"], "file");
    s.expect(
        3,
        "cli/file-find-up.json",
        &["file", "find-up", ".", "nothere"],
        b"",
    );
    let diff = s.ok(
        "cli/file-diff.json",
        &["file", "diff", "a.txt", "inside-link"],
    );
    assert_eq!(diff["identical"], true);
    let bytes = s.ok(
        "cli/file-read-bytes.json",
        &["file", "read-bytes", "a.txt", "--length", "3"],
    );
    assert_eq!(bytes["content"], "b25l");

    // Edits.
    let replaced = s.ok(
        "cli/file-replace-text.json",
        &[
            "file",
            "replace-text",
            "a.txt",
            "--old",
            "two",
            "--new",
            "TWO",
            "--first",
        ],
    );
    assert_eq!(replaced["match_count"], 1);
    s.ok(
        "cli/file-replace-lines.json",
        &[
            "file",
            "replace-lines",
            "a.txt",
            "--start",
            "1",
            "--end",
            "1",
            "--replacement",
            "ONE",
        ],
    );
    s.ok(
        "cli/file-insert-lines.json",
        &[
            "file",
            "insert-lines",
            "a.txt",
            "--position",
            "end",
            "--content",
            "five",
        ],
    );
    s.ok(
        "cli/file-delete-lines.json",
        &[
            "file",
            "delete-lines",
            "a.txt",
            "--start",
            "5",
            "--end",
            "5",
        ],
    );
    s.ok(
        "cli/file-create.json",
        &["file", "create", "p.txt", "--content", "alpha\nbeta\n"],
    );
    let patch = s.outside.join("change.patch");
    std::fs::write(
        &patch,
        "--- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n",
    )
    .unwrap();
    let patched = s.ok(
        "cli/file-apply-patch.json",
        &["file", "apply-patch", &s.path(&patch)],
    );
    assert_eq!(patched["patch_files"][0]["status"], "applies");

    // Copies, moves, deletes, directories.
    s.ok("cli/file-copy.json", &["file", "copy", "a.txt", "c.txt"]);
    s.ok("cli/file-move.json", &["file", "move", "c.txt", "d.txt"]);
    s.ok(
        "cli/file-delete.json",
        &["file", "delete", "d.txt", "--dry-run"],
    );
    let deleted = s.ok("cli/file-delete.json", &["file", "delete", "d.txt"]);
    s.ok(
        "cli/dir-create.json",
        &["dir", "create", "sub/deeper", "--parents"],
    );
    s.ok("cli/dir-move.json", &["dir", "move", "sub", "moved"]);
    s.ok(
        "cli/dir-delete.json",
        &[
            "dir",
            "delete",
            "moved",
            "--recursive",
            "--confirm-recursive",
        ],
    );

    // History.
    let write_op = id(&write, "operation_id");
    s.ok("cli/history-list.json", &["history", "list"]);
    s.ok("cli/history-show.json", &["history", "show", &write_op]);
    s.ok("cli/history-diff.json", &["history", "diff", &write_op]);
    s.ok(
        "cli/history-undo.json",
        &["history", "undo", &id(&deleted, "operation_id")],
    );
    s.ok("cli/history-undo-last.json", &["history", "undo-last"]);

    // Plumbing: a journaled write by hand, aborted once and then committed.
    s.expect(
        0,
        "cli/hash-object.json",
        &["hash-object", "--stdin"],
        b"no workspace needed\n",
    );
    let blob = s.ok("cli/hash-object.json", &["hash-object", "-w", "a.txt"]);
    let blob = id(&blob, "object_id");
    s.ok("cli/cat-blob.json", &["cat-blob", &blob]);
    s.ok(
        "cli/resolve-path.json",
        &["resolve-path", "j.txt", "--for-write"],
    );
    let item = json!({"path": "j.txt", "after_hash": blob}).to_string();
    let begin = ["journal-begin", "--kind", "write", "--item", &item];
    let first = s.ok("cli/journal-begin.json", &begin);
    s.ok(
        "cli/journal-abort.json",
        &["journal-abort", &id(&first, "operation_id")],
    );
    let second = id(&s.ok("cli/journal-begin.json", &begin), "operation_id");
    s.ok(
        "cli/publish.json",
        &["publish", "j.txt", "--blob", &blob, "--create"],
    );
    s.ok("cli/journal-commit.json", &["journal-commit", &second]);
    s.ok("cli/journal-show.json", &["journal-show", &second]);
    s.ok("cli/fsck.json", &["fsck"]);
    let status = s.ok("cli/status.json", &["status"]);
    assert_eq!(status["state"], "project");
    s.ok("cli/recover.json", &["recover"]);

    // Retention, last: a prune with no grace period cuts every operation but the newest,
    // and gc then removes what they alone named.
    s.ok(
        "cli/history-prune.json",
        &["history", "prune", "--keep-last", "1", "--dry-run"],
    );
    s.ok(
        "cli/history-prune.json",
        &[
            "history",
            "prune",
            "--keep-last",
            "1",
            "--grace-period",
            "0",
        ],
    );
    s.ok("cli/history-show.json", &["history", "show", &write_op]);
    s.ok("cli/history-diff.json", &["history", "diff", &write_op]);
    s.ok("cli/gc.json", &["gc", "--dry-run", "--grace-period", "0"]);
    s.ok("cli/gc.json", &["gc"]);
    let completions = s.ok("cli/completions.json", &["completions", "bash"]);
    assert_eq!(completions["shell"], "bash");
    assert!(completions["script"].as_str().unwrap().contains("keeper"));
    let manual = s.ok("cli/man.json", &["man"]);
    assert!(manual["manual"].as_str().unwrap().starts_with(".ie"));

    // Failures.
    s.fails("PATH_NOT_FOUND", &["file", "read", "missing.txt"]);
    s.fails("INVALID_ARGUMENT", &["journal-commit", &second]);
    s.fails("INVALID_ARGUMENT", &["file", "no-such-command"]);

    s.ok(
        "cli/workspace-remove.json",
        &["workspace", "remove", "notes"],
    );

    let expected: BTreeSet<String> = s
        .schemas
        .keys()
        .filter(|p| !p.starts_with("mcp/"))
        .cloned()
        .collect();
    let missed: Vec<&String> = expected.difference(&s.exercised).collect();
    assert!(missed.is_empty(), "never exercised: {missed:?}");
}

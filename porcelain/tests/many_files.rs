//! A mutation of many files under a tight limit of open files. A mutation stages new files
//! before its record, and each staged file holds a descriptor until its step: only a bounded
//! number may be staged, or a large patch fails where it used to work.
//!
//! Its own test binary, since the limit applies to the whole process.

use filekeeper::{Filekeeper, MutationOptions};
use std::fmt::Write as _;
use std::fs;

const FILES: usize = 300;
const OPEN_FILES: u64 = 256;

#[test]
fn a_patch_of_more_files_than_the_descriptor_limit_applies() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    fs::create_dir_all(&root).unwrap();
    let mut patch = String::new();
    for i in 0..FILES {
        fs::write(root.join(format!("f{i}.txt")), format!("line {i}\n")).unwrap();
        write!(
            patch,
            "--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1 +1 @@\n-line {i}\n+edited {i}\n"
        )
        .unwrap();
    }
    let keeper = Filekeeper::new(Some(&tmp.path().join("home"))).unwrap();
    let ws = keeper.workspace(None, Some(&root)).unwrap();

    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    rustix::process::setrlimit(
        rustix::process::Resource::Nofile,
        rustix::process::Rlimit {
            current: Some(OPEN_FILES),
            maximum: limit.maximum,
        },
    )
    .unwrap();

    let result = ws
        .apply_patch(&patch, &MutationOptions::default())
        .expect("the patch applies under the limit");
    assert_eq!(result.items.len(), FILES);
    for i in 0..FILES {
        assert_eq!(
            fs::read_to_string(root.join(format!("f{i}.txt"))).unwrap(),
            format!("edited {i}\n")
        );
    }
}

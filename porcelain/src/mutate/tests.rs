use super::restore::{Touched, restore_before};
use super::*;
use crate::Filekeeper;
use std::fs;

fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    fs::create_dir(&root).unwrap();
    let keeper = Filekeeper::new(Some(&dir.path().join("home"))).unwrap();
    let ws = keeper.workspace(None, Some(&root)).unwrap();
    (dir, ws)
}

fn journal(ws: &Workspace) -> Journal {
    ws.inner.state(false).unwrap().unwrap().journal().unwrap()
}

#[test]
fn a_write_is_recorded_committed_with_both_blobs() {
    let (dir, ws) = workspace();
    let opts = MutationOptions::default();
    ws.create_file("a.txt", b"one\n", false, &opts).unwrap();
    let result = ws
        .write_file("a.txt", b"two\n", None, false, &opts)
        .unwrap();
    assert!(result.changed && result.undo_available && !result.dry_run);
    assert_eq!(fs::read(dir.path().join("ws/a.txt")).unwrap(), b"two\n");
    let op = journal(&ws)
        .get(result.operation_id.as_deref().unwrap())
        .unwrap();
    assert_eq!(op.status, Status::Committed);
    assert!(op.under_lock);
    let store = ws.inner.state(false).unwrap().unwrap().store();
    assert_eq!(
        store.read(&op.items[0].before_hash.unwrap()).unwrap(),
        b"one\n"
    );
    assert_eq!(
        store.read(&op.items[0].after_hash.unwrap()).unwrap(),
        b"two\n"
    );
}

#[test]
fn a_dry_run_creates_no_state_and_predicts_the_hash() {
    let (dir, ws) = workspace();
    let opts = MutationOptions {
        dry_run: true,
        ..Default::default()
    };
    let result = ws.create_file("a.txt", b"hello\n", false, &opts).unwrap();
    assert_eq!(
        result.predicted_after_hash,
        Some(Some(ObjectId::of(b"hello\n").to_string()))
    );
    assert_eq!(result.would_change, Some(true));
    assert!(result.operation_id.is_none() && result.after_hash.is_none());
    assert!(!dir.path().join("ws/a.txt").exists());
    assert!(!dir.path().join("ws/.filekeeper").exists());
}

#[test]
fn restoring_the_before_state_rebuilds_a_deleted_tree() {
    let (dir, ws) = workspace();
    let opts = MutationOptions::default();
    ws.create_dir("d/e", true, &opts).unwrap();
    ws.create_file("d/e/f.txt", b"deep\n", false, &opts)
        .unwrap();
    ws.create_file("d/g.txt", b"shallow\n", false, &opts)
        .unwrap();
    let result = ws.delete_dir("d", true, &opts).unwrap();
    assert!(!dir.path().join("ws/d").exists());
    let op = journal(&ws)
        .get(result.operation_id.as_deref().unwrap())
        .unwrap();
    let store = ws.inner.state(false).unwrap().unwrap().store();
    let outcome = restore_before(&ws, &op.items, &Touched::all(&op.items), &[], &store).unwrap();
    assert!(outcome.failed.is_empty(), "{:?}", outcome.failed);
    assert_eq!(
        fs::read(dir.path().join("ws/d/e/f.txt")).unwrap(),
        b"deep\n"
    );
    assert_eq!(
        fs::read(dir.path().join("ws/d/g.txt")).unwrap(),
        b"shallow\n"
    );
}

#[test]
fn a_pending_operation_left_under_the_lock_is_resolved_by_the_next_mutation() {
    let (dir, ws) = workspace();
    let opts = MutationOptions::default();
    ws.create_file("a.txt", b"old\n", false, &opts).unwrap();
    // Simulate a process that recorded a write, published it, and died before committing.
    let store = ws.inner.state(false).unwrap().unwrap().store();
    let new = store.write(b"new\n").unwrap();
    let mut j = journal(&ws);
    let id = j
        .begin(&NewOperation {
            kind: "write".into(),
            under_lock: true,
            items: vec![
                Item::from_json(&serde_json::json!({
                    "path": "a.txt",
                    "before_hash": ObjectId::of(b"old\n").to_string(),
                    "after_hash": new.to_string(),
                }))
                .unwrap(),
            ],
            ..Default::default()
        })
        .unwrap();
    fs::write(dir.path().join("ws/a.txt"), b"new\n").unwrap();
    let result = ws.create_file("b.txt", b"x", false, &opts).unwrap();
    assert_eq!(j.get(&id).unwrap().status, Status::Committed);
    assert!(
        result.warnings.iter().any(|w| w.contains(&id)),
        "{:?}",
        result.warnings
    );
}

#[test]
fn a_guard_failure_changes_nothing_and_records_nothing() {
    let (dir, ws) = workspace();
    let opts = MutationOptions::default();
    ws.create_file("a.txt", b"one\n", false, &opts).unwrap();
    let before = journal(&ws).all().unwrap().len();
    let stale = ObjectId::of(b"something else").to_string();
    let err = ws
        .write_file("a.txt", b"two\n", Some(&stale), false, &opts)
        .unwrap_err();
    assert_eq!(err.code, Code::ContentConflict);
    assert!(!err.retryable);
    assert_eq!(fs::read(dir.path().join("ws/a.txt")).unwrap(), b"one\n");
    assert_eq!(journal(&ws).all().unwrap().len(), before);
}

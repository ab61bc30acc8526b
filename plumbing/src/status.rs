//! Read-only counts of a workspace's state, for `keeper status`: the journal's operations by
//! what can still be done with them, and the object store's objects and bytes.
//!
//! Nothing here writes. The journal is opened read-only (no migration, no WAL mode change),
//! so a journal written by an older build is counted as it is and left as it is; one newer
//! than this build is refused as every command refuses it. The store is walked, never
//! counted from a kept number: see [`store_counts`].

use crate::error::{Error, Result};
use crate::journal::{APPLICATION_ID, SCHEMA_VERSION};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::time::Duration;

/// What the journal holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JournalCounts {
    /// The journal's schema version as stored (`PRAGMA user_version`).
    pub schema_version: i64,
    /// Every operation recorded, whatever its status.
    pub operations: u64,
    /// Operations still `pending`: one in progress, or one a dead process left for the next
    /// mutation's recovery to resolve.
    pub pending: u64,
    /// Operations that undo would try: committed or partial, not undone, every content
    /// stored, not pruned.
    pub undoable: u64,
    /// Operations reversed by a committed or partial undo.
    pub undone: u64,
    /// Operations marked pruned: still in the ledger, no longer undoable.
    pub pruned: u64,
    /// The oldest undoable operation: its id and when it was recorded.
    pub oldest_undoable: Option<(String, String)>,
}

/// What the object store holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreCounts {
    /// Well-named objects (`objects/<2 hex>/<62 hex>`).
    pub objects: u64,
    /// Their total size on disk, compressed.
    pub compressed_bytes: u64,
    /// Their total size uncompressed, from each object's zstd frame header, over the objects
    /// whose header records it.
    pub uncompressed_bytes: u64,
    /// Objects whose frame header does not record their uncompressed size (blobs stored as a
    /// stream, by `hash-object -w`), left out of `uncompressed_bytes`.
    pub objects_of_unknown_size: u64,
    /// Other files in the store: temp files of writes a crash or a kill interrupted, or
    /// anything else that is not an object.
    pub stray_files: u64,
}

/// Of the unpruned operations, those undo would try, as `history list` judges each one
/// (`undoable`): committed or partial, not reversed by a committed or partial undo, with no
/// item whose bytes were above the history cap. (`+o.status`: the rows come from the source's
/// own range, not from the index on status, which holds every committed operation.)
const UNDOABLE: &str = "+o.status IN ('committed', 'partial')
    AND NOT EXISTS (SELECT 1 FROM operations u WHERE u.undoes = o.id AND u.kind = 'undo'
                    AND u.status = 'committed')
    AND NOT EXISTS (SELECT 1 FROM operation_items i WHERE i.op_id = o.id AND i.history_skipped = 1)";

/// Counts the journal at `path`; `None` when there is none (nothing is created).
pub fn journal_counts(path: &Path) -> Result<Option<JournalCounts>> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(30))?;
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    // An empty database is a journal another process is creating (its first change), which
    // holds nothing yet: as if there were none.
    let tables = || -> Result<i64> {
        Ok(conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?)
    };
    if app == 0 && version == 0 && tables()? == 0 {
        return Ok(None);
    }
    if app != APPLICATION_ID || version < 1 {
        return Err(crate::journal::not_a_journal(version));
    }
    if version > SCHEMA_VERSION {
        return Err(crate::journal::newer_journal(version));
    }
    // One read transaction: every count is of the same moment, even with a writer running.
    conn.execute_batch("BEGIN")?;
    let sources = unpruned_sources(&conn)?;
    let count =
        |sql: &str| -> Result<u64> { Ok(conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
    let counts = JournalCounts {
        schema_version: version,
        operations: count("SELECT count(*) FROM operations")?,
        pending: count("SELECT count(*) FROM operations WHERE status = 'pending'")?,
        undoable: sources.iter().try_fold(0, |sum, source| {
            Ok::<_, Error>(sum + count(&format!("SELECT count(*) FROM {source} AND {UNDOABLE}"))?)
        })?,
        undone: count(
            "SELECT count(DISTINCT undoes) FROM operations
             WHERE undoes IS NOT NULL AND kind = 'undo' AND status = 'committed'",
        )?,
        pruned: pruned_count(&conn)?,
        oldest_undoable: {
            let mut oldest: Option<(i64, String, String)> = None;
            for source in &sources {
                let first = conn
                    .query_row(
                        &format!(
                            "SELECT o.seq, o.id, o.created_at FROM {source} AND {UNDOABLE}
                             ORDER BY o.seq LIMIT 1"
                        ),
                        [],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .optional()?;
                oldest = match (oldest, first) {
                    (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                    (a, b) => a.or(b),
                };
            }
            oldest.map(|(_, id, at)| (id, at))
        },
    };
    conn.execute_batch("COMMIT")?;
    Ok(Some(counts))
}

/// The unpruned operations as the journal's schema records them: `FROM` clauses, each with a
/// `WHERE` to extend with `AND`, naming the operation `o`, that together yield each unpruned
/// operation once. Status reads a journal as it is, without migrating it. Schema 1 had no
/// pruning; schema 2 marked each pruned row (`operations.pruned_at`); from schema 3 the
/// unpruned operations are those after the newest cut and the exceptions still kept
/// ([`crate::journal::PRUNED`]), each read from its own range rather than by testing every
/// operation, half a second on a million-operation journal.
pub fn unpruned_sources(conn: &Connection) -> Result<Vec<&'static str>> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok(match version {
        ..=1 => vec!["operations o WHERE 1"],
        2 => vec!["operations o WHERE o.pruned_at IS NULL"],
        _ => vec![
            "operations o WHERE o.seq > (SELECT coalesce(max(cut_seq), 0) FROM prunes)",
            "prune_exceptions e CROSS JOIN operations o
              WHERE e.pruned_by IS NULL AND o.id = e.op_id",
        ],
    })
}

/// How many operations are pruned: none before schema 2, which marked each pruned row; from
/// schema 3 each prune records how many operations it pruned, and no operation is pruned
/// twice.
pub fn pruned_count(conn: &Connection) -> Result<u64> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let sql = match version {
        ..=1 => return Ok(0),
        2 => "SELECT count(*) FROM operations WHERE pruned_at IS NOT NULL",
        _ => "SELECT coalesce(sum(operations), 0) FROM prunes",
    };
    Ok(conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64)
}

/// Counts the object store at `dir` by walking it; a missing store holds nothing.
///
/// A walk, not a kept count: a number kept beside the objects would have to change in the
/// same durable step as every object written or removed, by mutations, plumbing scripts and
/// gc alike, and would drift after a crash between the two. A walk is exact by construction
/// and costs one `stat` and one 18-byte read per object (see `docs/decisions.md` for the
/// measurement).
pub fn store_counts(dir: &Path) -> Result<StoreCounts> {
    let mut counts = StoreCounts::default();
    let listing = |e: io::Error| Error::storage("listing the object store", &e);
    let top = match std::fs::read_dir(dir) {
        Ok(top) => top,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(counts),
        Err(e) => return Err(listing(e)),
    };
    for fan in top {
        let fan = fan.map_err(listing)?;
        let fan_name = fan.file_name();
        let fan_ok = fan.file_type().map_err(listing)?.is_dir() && is_hex(&fan_name, 2);
        if !fan_ok {
            counts.stray_files += 1;
            continue;
        }
        let objects = match std::fs::read_dir(fan.path()) {
            Ok(objects) => objects,
            // gc may remove an empty fan-out directory while we walk.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(listing(e)),
        };
        for entry in objects {
            let entry = entry.map_err(listing)?;
            if !is_hex(&entry.file_name(), 62) {
                counts.stray_files += 1;
                continue;
            }
            let meta = match entry.metadata() {
                Ok(meta) => meta,
                // Removed between the listing and the stat: it is no longer there to count.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(listing(e)),
            };
            if !meta.is_file() {
                counts.stray_files += 1;
                continue;
            }
            counts.objects += 1;
            counts.compressed_bytes += meta.len();
            match content_size(&entry.path()) {
                Some(size) => counts.uncompressed_bytes += size,
                None => counts.objects_of_unknown_size += 1,
            }
        }
    }
    Ok(counts)
}

/// The uncompressed size an object's zstd frame header records, if it records one (a blob
/// compressed whole does; one compressed as a stream does not).
fn content_size(path: &Path) -> Option<u64> {
    // The longest zstd frame header is 18 bytes.
    let mut head = [0u8; 18];
    let mut file = File::open(path).ok()?;
    let mut len = 0;
    while len < head.len() {
        match file.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    zstd::zstd_safe::get_frame_content_size(&head[..len])
        .ok()
        .flatten()
}

fn is_hex(name: &std::ffi::OsStr, len: usize) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.len() == len
        && bytes
            .iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;
    use crate::journal::{Item, Journal, NewOperation, Status};
    use crate::odb::ObjectStore;
    use crate::oid::ObjectId;
    use serde_json::json;

    fn op(path: &str, skipped: bool) -> NewOperation {
        let mut item = Item::from_json(&json!({
            "path": path,
            "before_hash": ObjectId::of(b"old").to_string(),
            "after_hash": ObjectId::of(b"new").to_string(),
            "before_mode": 0o644,
            "after_mode": 0o644,
        }))
        .unwrap();
        item.history_skipped = skipped;
        NewOperation {
            kind: "write".into(),
            summary: format!("Wrote {path}."),
            target_path: Some(path.into()),
            items: vec![item],
            ..Default::default()
        }
    }

    fn undo_of(id: &str) -> NewOperation {
        NewOperation {
            kind: "undo".into(),
            undoes: Some(id.into()),
            ..op("a.txt", false)
        }
    }

    #[test]
    fn a_missing_journal_is_none_and_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::journal::FILE_NAME);
        assert_eq!(journal_counts(&path).unwrap(), None);
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
        // The empty file another process's first change has just made is none either.
        std::fs::write(&path, b"").unwrap();
        assert_eq!(journal_counts(&path).unwrap(), None);
    }

    #[test]
    fn operations_are_counted_by_what_can_be_done_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::journal::FILE_NAME);
        let mut j = Journal::open(&path, true).unwrap().unwrap();
        let commit = |j: &mut Journal, op: &NewOperation| {
            let id = j.begin(op).unwrap();
            j.set_status(&id, &[Status::Pending], Status::Committed)
                .unwrap();
            id
        };
        let first = commit(&mut j, &op("a.txt", false));
        let second = commit(&mut j, &op("b.txt", false));
        commit(&mut j, &op("big.bin", true)); // history skipped: never undoable
        let undo = commit(&mut j, &undo_of(&first)); // undoes the first; undoable itself
        let rolled = j.begin(&op("c.txt", false)).unwrap();
        j.set_status(&rolled, &[Status::Pending], Status::RolledBack)
            .unwrap();
        j.begin(&op("d.txt", false)).unwrap(); // left pending
        let counts = journal_counts(&path).unwrap().unwrap();
        assert_eq!(counts.schema_version, SCHEMA_VERSION);
        assert_eq!(counts.operations, 6);
        assert_eq!(counts.pending, 1);
        assert_eq!(counts.undone, 1);
        assert_eq!(counts.undoable, 2, "the second write and the undo");
        assert_eq!(counts.pruned, 0, "no pruned marker yet");
        let oldest = counts.oldest_undoable.unwrap();
        assert_eq!(oldest.0, second);
        assert_ne!(oldest.0, undo);
    }

    #[test]
    fn a_pruned_marker_is_counted_and_ends_undoability() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::journal::FILE_NAME);
        let mut j = Journal::open(&path, true).unwrap().unwrap();
        for name in ["a.txt", "b.txt"] {
            let id = j.begin(&op(name, false)).unwrap();
            j.set_status(&id, &[Status::Pending], Status::Committed)
                .unwrap();
        }
        drop(j);
        let conn = Connection::open(&path).unwrap();
        assert_eq!(pruned_count(&conn).unwrap(), 0);
        // Since schema 3 a prune is a row of `prunes` cutting a range of sequence numbers.
        conn.execute_batch(
            "INSERT INTO prunes (id, rule, cut_seq, first_seq, operations)
                 VALUES ('prune_0000000000000000', 'keep_last 1', 1, 1, 1);",
        )
        .unwrap();
        assert_eq!(pruned_count(&conn).unwrap(), 1);
        drop(conn);
        let counts = journal_counts(&path).unwrap().unwrap();
        assert_eq!((counts.pruned, counts.undoable), (1, 1));
    }

    #[test]
    fn a_newer_or_foreign_journal_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::journal::FILE_NAME);
        drop(Journal::open(&path, true).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(conn);
        assert_eq!(
            journal_counts(&path).unwrap_err().code,
            Code::MigrationError
        );
        let foreign = dir.path().join("foreign.sqlite3");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        assert_eq!(
            journal_counts(&foreign).unwrap_err().code,
            Code::MigrationError
        );
    }

    #[test]
    fn the_store_is_counted_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let objects = dir.path().join("objects");
        assert_eq!(store_counts(&objects).unwrap(), StoreCounts::default());
        assert!(!objects.exists(), "counting created the store");
        let store = ObjectStore::at(&objects);
        let small = b"hello\n".to_vec();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        store.write(&small).unwrap();
        store.write(&big).unwrap();
        let streamed: Vec<u8> = b"streamed ".repeat(1000);
        store.write_stream(&streamed[..]).unwrap();
        std::fs::write(objects.join("tmp_obj_0123456789abcdef"), b"x").unwrap();
        let counts = store_counts(&objects).unwrap();
        let on_disk: u64 = walkdir(&objects)
            .iter()
            .filter(|p| !p.ends_with("tmp_obj_0123456789abcdef"))
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum();
        assert_eq!(counts.objects, 3);
        assert_eq!(counts.compressed_bytes, on_disk);
        assert_eq!(
            counts.uncompressed_bytes,
            (small.len() + big.len()) as u64,
            "the streamed blob's size is not in its header"
        );
        assert_eq!(counts.objects_of_unknown_size, 1);
        assert_eq!(counts.stray_files, 1);
    }

    fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(walkdir(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    /// Times a walk of a store of `FILEKEEPER_STATUS_OBJECTS` objects (default 5000): run with
    /// `cargo test --release -p filekeeper-plumbing status::tests::walk_cost -- --ignored
    /// --nocapture`. The numbers are in `docs/decisions.md`.
    #[test]
    #[ignore]
    fn walk_cost() {
        let n: u32 = std::env::var("FILEKEEPER_STATUS_OBJECTS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(5000);
        let dir = tempfile::tempdir().unwrap();
        let objects = dir.path().join("objects");
        let store = ObjectStore::at(&objects);
        for i in 0..n {
            store.write(format!("blob {i}\n").as_bytes()).unwrap();
        }
        for round in 0..3 {
            let start = std::time::Instant::now();
            let counts = store_counts(&objects).unwrap();
            let walked = start.elapsed();
            let start = std::time::Instant::now();
            let mut stats = 0u64;
            for fan in std::fs::read_dir(&objects).unwrap() {
                for obj in std::fs::read_dir(fan.unwrap().path()).unwrap() {
                    stats += obj.unwrap().metadata().unwrap().len();
                }
            }
            let stat_only = start.elapsed();
            assert_eq!(counts.objects, u64::from(n));
            eprintln!(
                "round {round}: {n} objects: full count {walked:?}, stat only {stat_only:?} ({stats} bytes)"
            );
        }
    }
}

//! History retention in the journal: pruning operations, and which objects the unpruned ones
//! still name, which gc keeps.
//!
//! A prune is a cut (schema 3): one `prunes` row for the range of sequence numbers it cut
//! past the newest earlier cut, and one `prune_exceptions` row per operation of the range it
//! kept, pending or not yet settled, which a later prune marks pruned. An operation is pruned
//! when it is at or before the newest cut and is not an exception still kept ([`PRUNED`]).
//! Which objects are still named is answered without building the set of them: `object_refs`,
//! written with each item (`Journal::begin`), holds each object's newest naming operation, so
//! an object is named by an unpruned operation when that one is after the newest cut, or when
//! an exception still kept names it (those go in a TEMP table: at most the operations of one
//! grace period, since an exception is pruned by the next prune once it settles). gc also
//! holds what an item written by hand names without its `object_refs` row ([`Journal::live_objects`]).

use super::Journal;
use crate::config::Retention;
use crate::durable::random_hex16;
use crate::error::{Error, Result};
use crate::odb::ObjectStore;
use crate::oid::ObjectId;
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use std::time::{Duration, SystemTime};

/// Where a prune cuts history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PruneRule {
    /// Every operation recorded before the first one recorded within this long of now.
    OlderThan(Duration),
    /// Every operation but the newest N.
    KeepLast(u64),
    /// Every operation older than the newest ones whose objects together take at most this
    /// many bytes on disk.
    MaxStoreSize(u64),
    /// Every operation no rule of the list keeps: the earliest of their cuts, and nothing
    /// when one of them cuts nothing (the `[history]` policy's rules combined).
    All(Vec<PruneRule>),
}

/// What a prune found, and what it pruned (or, on a dry run, would have).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// The prune's id (`prune_` and 16 hex digits), when it pruned anything and was not a dry
    /// run.
    pub prune_id: Option<String>,
    /// The cut: every operation with a sequence number up to this one was a candidate. `None`
    /// when the rule cuts nothing.
    pub cut: Option<Cut>,
    /// The operations it pruned.
    pub operations: u64,
    /// Operations at or before the cut left unpruned: still pending, or committed within the
    /// grace period.
    pub protected: u64,
    /// The objects the pruned operations alone named.
    pub released: Released,
}

/// The point a prune cut at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The sequence number of the newest operation at or before the cut.
    pub seq: i64,
}

/// Objects a prune made collectable: named by the operations it pruned and by no operation
/// left unpruned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Released {
    /// Those gc would remove now: older than the grace period.
    pub objects: u64,
    /// Their bytes on disk (compressed).
    pub bytes: u64,
    /// Those gc keeps until they are older than the grace period.
    pub held_objects: u64,
    /// Their bytes on disk.
    pub held_bytes: u64,
}

/// The SQL condition, on an `operations` row named `o`, that the operation is pruned: at or
/// before the newest cut, and not an exception a prune kept and no later one pruned.
/// [`PRUNED_BY`] says, for the same operations, which prune.
pub const PRUNED: &str = "(o.seq <= (SELECT coalesce(max(cut_seq), 0) FROM prunes)
    AND NOT EXISTS (SELECT 1 FROM prune_exceptions e WHERE e.op_id = o.id AND e.pruned_by IS NULL))";

/// The SQL value, on an `operations` row named `o`, of the prune that pruned it (its id in
/// `prunes`), NULL when it is not pruned: an exception's own `pruned_by`, else the prune whose
/// range holds it (the one with the greatest `first_seq` at or before it). Schema 3 answered
/// this in the view `pruned_operations`, which schema 4 dropped (`schema.rs`);
/// `docs/on-disk-format.md` gives the same query for a person with `sqlite3`.
pub const PRUNED_BY: &str = "(CASE
    WHEN o.seq > (SELECT coalesce(max(cut_seq), 0) FROM prunes) THEN NULL
    WHEN EXISTS (SELECT 1 FROM prune_exceptions e WHERE e.op_id = o.id)
        THEN (SELECT e.pruned_by FROM prune_exceptions e WHERE e.op_id = o.id)
    ELSE (SELECT r.id FROM prunes r WHERE r.first_seq <= o.seq ORDER BY r.first_seq DESC LIMIT 1)
    END)";

/// The policy's `max_store_bytes` is looked at after every this many operations (by sequence
/// number): judging it means walking the unpruned operations and their objects.
pub const SIZE_CHECK_EVERY: i64 = 64;

/// The SQL time `seconds` before now, in the journal's timestamp format.
const AGO: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?1 || ' seconds')";

impl Journal {
    /// Prunes the operations `rule` cuts, in one transaction, except those still pending or
    /// whose status changed within `grace`: one row in `prunes` for the range of sequence
    /// numbers it cut past the newest earlier cut, one row in `prune_exceptions` for each
    /// operation of that range it kept, and `pruned_by` set on the earlier exceptions at or
    /// before the cut that have since settled. With `dry_run` the transaction is rolled back
    /// and the result says what it would have done.
    pub fn prune(
        &mut self,
        rule: &PruneRule,
        rule_text: &str,
        grace: Duration,
        actor: Option<&str>,
        store: &ObjectStore,
        dry_run: bool,
    ) -> Result<Pruned> {
        // IMMEDIATE: the write lock is taken before anything is read, so what the cut is
        // computed from cannot change before the prune is written.
        let tx = self
            .conn_mut()
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let cut = rule_cut(&tx, rule, store)?;
        let Some(cut) = cut.filter(|seq| *seq > 0) else {
            return Ok(Pruned::default());
        };
        let before = newest_cut(&tx)?;
        // One moment for the grace period, so that every statement below agrees on which
        // operations have settled.
        let settled: String =
            tx.query_row(&format!("SELECT {AGO}"), [grace.as_secs() as i64], |r| {
                r.get(0)
            })?;
        let id = format!("prune_{}", random_hex16());
        let first_seq = (cut > before).then_some(before + 1);
        tx.execute(
            "INSERT INTO prunes (id, actor, rule, cut_seq, first_seq, operations)
             VALUES (?1, ?2, ?3, ?4, ?5, 0)",
            params![id, actor, rule_text, cut, first_seq],
        )?;
        // Operations an earlier prune kept, at or before this cut, that have settled since:
        // each exception still kept is looked at once, and the operations table only by id.
        let late = tx.execute(
            "UPDATE prune_exceptions SET pruned_by = ?1
              WHERE pruned_by IS NULL
                AND EXISTS (SELECT 1 FROM operations o
                             WHERE o.id = prune_exceptions.op_id AND o.seq <= ?2
                               AND o.status != 'pending' AND o.updated_at < ?3)",
            params![id, cut, settled],
        )? as u64;
        // The new range, and the operations of it that have not settled: both found by index
        // (`+seq` keeps SQLite from walking the whole range by sequence number instead).
        let (ranged, kept) = match first_seq {
            Some(first) => (
                tx.query_row(
                    "SELECT count(*) FROM operations WHERE seq BETWEEN ?1 AND ?2",
                    [first, cut],
                    |r| r.get::<_, i64>(0),
                )? as u64,
                tx.execute(
                    "INSERT INTO prune_exceptions (op_id, kept_by)
                     SELECT id, ?1 FROM operations
                      WHERE status = 'pending' AND +seq BETWEEN ?2 AND ?3
                     UNION
                     SELECT id, ?1 FROM operations
                      WHERE updated_at >= ?4 AND +seq BETWEEN ?2 AND ?3",
                    params![id, first, cut, settled],
                )? as u64,
            ),
            None => (0, 0),
        };
        let pruned_now = ranged - kept + late;
        let protected: i64 = tx.query_row(
            "SELECT count(*) FROM prune_exceptions e CROSS JOIN operations o
              WHERE e.pruned_by IS NULL AND o.id = e.op_id AND o.seq <= ?1",
            [cut],
            |r| r.get(0),
        )?;
        let mut pruned = Pruned {
            prune_id: None,
            cut: Some(Cut { seq: cut }),
            operations: pruned_now,
            protected: protected as u64,
            released: Released::default(),
        };
        if pruned_now == 0 {
            // Nothing to record: a prune that pruned nothing leaves no row.
            return Ok(pruned);
        }
        fill_held(&tx)?;
        {
            // Released: wanted before this prune (newest operation after the old cut, or named
            // by an exception it pruned) and not now (newest operation at or before the new
            // cut, and named by no exception still kept).
            let now = SystemTime::now();
            let mut released = tx.prepare(
                "SELECT hash FROM object_refs
                  WHERE last_seq > ?1 AND last_seq <= ?2
                    AND hash NOT IN (SELECT h FROM temp.fk_held)
                 UNION
                 SELECT r.hash FROM prune_exceptions e
                  CROSS JOIN operation_items i
                  CROSS JOIN object_refs r
                  WHERE e.pruned_by = ?3 AND i.op_id = e.op_id
                    AND r.hash IN (i.before_hash, i.after_hash) AND r.last_seq <= ?2
                    AND r.hash NOT IN (SELECT h FROM temp.fk_held)",
            )?;
            let mut rows = released.query(params![before, before.max(cut), id])?;
            while let Some(row) = rows.next()? {
                let Ok(oid) = ObjectId::parse(&row.get::<_, String>(0)?) else {
                    continue;
                };
                let Some((size, modified)) = store.stat(&oid) else {
                    continue;
                };
                if is_young(modified, now, grace) {
                    pruned.released.held_objects += 1;
                    pruned.released.held_bytes += size;
                } else {
                    pruned.released.objects += 1;
                    pruned.released.bytes += size;
                }
            }
        }
        tx.execute_batch("DROP TABLE temp.fk_held;")?;
        tx.execute(
            "UPDATE prunes SET operations = ?2 WHERE id = ?1",
            params![id, pruned_now as i64],
        )?;
        if dry_run {
            tx.rollback()?;
        } else {
            crate::fault::counted("journal: prune operations", || {
                tx.commit().map_err(Error::from)
            })?;
            pruned.prune_id = Some(id);
        }
        Ok(pruned)
    }

    /// Whether the `[history]` policy lets go of an operation a prune could mark now: the
    /// cheap check run after each mutation, a few indexed queries and no walk. Every rule set
    /// must let go (an operation is pruned only when no rule keeps it), each past a slack of
    /// an eighth of its value, so that the prune and gc it starts run once per that many
    /// operations or that much time rather than after every change. `max_store_bytes` needs a
    /// walk of the operations, so it is only looked at when the newest operation's sequence
    /// number is a multiple of [`SIZE_CHECK_EVERY`], and then by the prune itself. The
    /// operation the check looks at, the oldest unpruned one after the newest prune's cut that
    /// is not pending, must also be older than `grace`, or the prune would mark nothing.
    pub fn policy_due(&self, policy: &Retention, grace: Duration) -> Result<bool> {
        if !policy.enabled() {
            return Ok(false);
        }
        let conn = self.conn();
        // Starting after the newest prune's cut skips the pruned rows; operations at or before
        // it that a prune kept (pending, or then within the grace period) are pruned by the
        // next prune, whose cut covers them.
        let floor = newest_cut(conn)?;
        let keep_secs = policy.keep_days.map(|d| {
            d.saturating_mul(86_400)
                .saturating_add(d.saturating_mul(86_400) / 8)
        });
        let oldest: Option<(i64, bool, bool)> = conn
            .query_row(
                "SELECT seq,
                        created_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?2 || ' seconds'),
                        updated_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?3 || ' seconds')
                   FROM operations
                  WHERE seq > ?1 AND status != 'pending'
                  ORDER BY seq LIMIT 1",
                params![
                    floor,
                    keep_secs.unwrap_or(0).min(i64::MAX as u64) as i64,
                    grace.as_secs() as i64
                ],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((oldest, old_enough, out_of_grace)) = oldest else {
            return Ok(false);
        };
        if !out_of_grace || (keep_secs.is_some() && !old_enough) {
            return Ok(false);
        }
        if let Some(n) = policy.keep_last {
            let slack = n.saturating_add(n / 8).min(i64::MAX as u64) as i64;
            let beyond: Option<i64> = conn
                .query_row(
                    "SELECT seq FROM operations ORDER BY seq DESC LIMIT 1 OFFSET ?1",
                    [slack],
                    |r| r.get(0),
                )
                .optional()?;
            if beyond.is_none_or(|seq| seq < oldest) {
                return Ok(false);
            }
        }
        if policy.max_store_bytes.is_some() {
            let newest: i64 =
                conn.query_row("SELECT coalesce(max(seq), 0) FROM operations", [], |r| {
                    r.get(0)
                })?;
            if newest % SIZE_CHECK_EVERY != 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The objects some unpruned operation names (before or after, any status): those whose
    /// newest naming operation is after the newest cut, and those an exception a prune kept
    /// names, gathered once as a TEMP table. [`Live::contains`] asks them. Call it under the
    /// workspace lock, so that no operation naming a new object is recorded while it is in
    /// use.
    ///
    /// Every question is asked inside one read transaction, which ends when the [`Live`] is
    /// dropped: outside one, SQLite takes and releases its shared lock around each statement,
    /// two `fcntl` calls per object asked about.
    pub fn live_objects(&mut self) -> Result<Live<'_>> {
        let conn = self.conn();
        let began = conn.is_autocommit();
        if began {
            conn.execute_batch("BEGIN")?;
        }
        // Made before the first question, so that an error ends the transaction on the way out.
        let mut live = Live {
            journal: self,
            newest_cut: 0,
            began,
        };
        live.newest_cut = newest_cut(live.journal.conn())?;
        fill_held(live.journal.conn())?;
        hold_unindexed(live.journal.conn(), live.newest_cut)?;
        Ok(live)
    }
}

/// The objects unpruned operations name; dropping it drops its TEMP table.
pub struct Live<'a> {
    journal: &'a Journal,
    newest_cut: i64,
    /// Whether [`Journal::live_objects`] began the read transaction, which the drop ends.
    began: bool,
}

impl Live<'_> {
    /// Whether an unpruned operation names `id`.
    pub fn contains(&self, id: &ObjectId) -> Result<bool> {
        Ok(self
            .journal
            .conn()
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM object_refs WHERE hash = ?1 AND last_seq > ?2)
                     OR EXISTS (SELECT 1 FROM temp.fk_held WHERE h = ?1)",
            )?
            .query_row(params![id.to_string(), self.newest_cut], |r| r.get(0))?)
    }
}

impl Drop for Live<'_> {
    fn drop(&mut self) {
        let conn = self.journal.conn();
        let _ = conn.execute_batch("DROP TABLE IF EXISTS temp.fk_held");
        if self.began {
            let _ = conn.execute_batch("COMMIT");
        }
    }
}

/// Whether a file last modified at `modified` is younger than `grace` at `now`. A time in the
/// future (a clock set back) counts as young.
pub fn is_young(modified: SystemTime, now: SystemTime, grace: Duration) -> bool {
    match now.duration_since(modified) {
        Ok(age) => age < grace,
        Err(_) => true,
    }
}

/// The newest cut of any prune, 0 before the first: every operation after it is unpruned.
fn newest_cut(conn: &rusqlite::Connection) -> Result<i64> {
    Ok(
        conn.query_row("SELECT coalesce(max(cut_seq), 0) FROM prunes", [], |r| {
            r.get(0)
        })?,
    )
}

/// The exceptions prunes kept and no later prune pruned, each operation once: a prune keeps
/// only what has not settled, so there are at most the operations of one grace period and
/// the pending ones.
const HELD_OPERATIONS: &str = "SELECT op_id FROM prune_exceptions WHERE pruned_by IS NULL";

/// Fills the TEMP table `fk_held` with every object an unpruned exception names: wanted
/// whatever newer operation names them or not.
fn fill_held(conn: &rusqlite::Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "DROP TABLE IF EXISTS temp.fk_held;
         CREATE TEMP TABLE fk_held (h TEXT PRIMARY KEY) WITHOUT ROWID;
         INSERT OR IGNORE INTO temp.fk_held
         SELECT h FROM (
             SELECT CASE side.n WHEN 0 THEN i.before_hash ELSE i.after_hash END AS h
               FROM ({HELD_OPERATIONS}) e
              CROSS JOIN operation_items i
              CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1) side
              WHERE i.op_id = e.op_id)
          WHERE h IS NOT NULL;"
    ))?;
    Ok(())
}

/// Adds to `fk_held` every object an item after the newest cut names that `object_refs`
/// does not answer for (no row, or its newest operation at or before the cut). keeper
/// writes an item's rows there in the same transaction (`Journal::begin`), so this finds
/// nothing unless the journal was written by hand; asking costs one pass over the items
/// after the cut, and gc then never takes an object that a row written by any means still
/// names.
fn hold_unindexed(conn: &rusqlite::Connection, newest_cut: i64) -> Result<()> {
    conn.prepare(
        "INSERT OR IGNORE INTO temp.fk_held
         SELECT h FROM (
             SELECT CASE side.n WHEN 0 THEN i.before_hash ELSE i.after_hash END AS h
               FROM operations o
              CROSS JOIN operation_items i
              CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1) side
              WHERE o.seq > ?1 AND i.op_id = o.id)
          WHERE h IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM object_refs r WHERE r.hash = h AND r.last_seq > ?1)",
    )?
    .execute([newest_cut])?;
    Ok(())
}

/// Where `rule` cuts: the sequence number of the newest operation it lets go, `None` when it
/// keeps every operation.
fn rule_cut(
    conn: &rusqlite::Connection,
    rule: &PruneRule,
    store: &ObjectStore,
) -> Result<Option<i64>> {
    Ok(match rule {
        PruneRule::OlderThan(age) => conn.query_row(
            &format!(
                "SELECT CASE WHEN (SELECT count(*) FROM operations) = 0 THEN NULL
                        ELSE coalesce((SELECT min(seq) FROM operations WHERE created_at >= {AGO}) - 1,
                                      (SELECT max(seq) FROM operations)) END"
            ),
            [age.as_secs() as i64],
            |r| r.get(0),
        )?,
        PruneRule::KeepLast(n) => conn
            .query_row(
                "SELECT seq FROM operations ORDER BY seq DESC LIMIT 1 OFFSET ?1",
                [*n as i64],
                |r| r.get(0),
            )
            .optional()?,
        PruneRule::MaxStoreSize(limit) => size_cut(conn, store, *limit)?,
        PruneRule::All(rules) => {
            let mut earliest: Option<i64> = None;
            for rule in rules {
                let Some(cut) = rule_cut(conn, rule, store)? else {
                    return Ok(None);
                };
                earliest = Some(earliest.map_or(cut, |e| e.min(cut)));
            }
            earliest
        }
    })
}

/// The cut of `--max-store-size`: walking the unpruned operations newest first and adding the
/// on-disk size of each object the first time one names it, the operation at which the total
/// passes `limit`; `None` when it never does.
///
/// An object is first met, walking newest first, at its newest naming operation, which
/// `object_refs` records: the walk after the newest cut is one pass over that table's index
/// by `last_seq`. Below the cut only the exceptions a prune kept are unpruned; their objects
/// not met already are added in their order.
fn size_cut(conn: &rusqlite::Connection, store: &ObjectStore, limit: u64) -> Result<Option<i64>> {
    let floor = newest_cut(conn)?;
    let size = |h: &str| {
        ObjectId::parse(h)
            .ok()
            .and_then(|id| store.stat(&id))
            .map_or(0, |(size, _)| size)
    };
    let mut total = 0u64;
    let mut newest = conn.prepare(
        "SELECT hash, last_seq FROM object_refs WHERE last_seq > ?1 ORDER BY last_seq DESC",
    )?;
    let mut rows = newest.query([floor])?;
    while let Some(row) = rows.next()? {
        total += size(&row.get::<_, String>(0)?);
        if total > limit {
            return Ok(Some(row.get(1)?));
        }
    }
    let mut held = conn.prepare(&format!(
        "SELECT o.seq, r.hash FROM ({HELD_OPERATIONS}) e
          CROSS JOIN operations o
          CROSS JOIN operation_items i
          CROSS JOIN object_refs r
          WHERE o.id = e.op_id AND i.op_id = o.id
            AND r.hash IN (i.before_hash, i.after_hash) AND r.last_seq <= ?1
          ORDER BY o.seq DESC"
    ))?;
    let mut rows = held.query([floor])?;
    let mut seen = std::collections::HashSet::new();
    while let Some(row) = rows.next()? {
        let hash: String = row.get(1)?;
        if seen.insert(hash.clone()) {
            total += size(&hash);
            if total > limit {
                return Ok(Some(row.get(0)?));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::super::{FILE_NAME, Item, NewOperation, Status};
    use super::*;
    use serde_json::json;

    struct Fixture {
        _dir: tempfile::TempDir,
        journal: Journal,
        store: ObjectStore,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(&dir.path().join(FILE_NAME), true)
            .unwrap()
            .unwrap();
        let store = ObjectStore::at(dir.path().join("objects"));
        Fixture {
            _dir: dir,
            journal,
            store,
        }
    }

    impl Fixture {
        /// Prunes every operation it may (`--keep-last 0`) with a grace period of an hour.
        fn keep_none(&mut self) -> Pruned {
            self.journal
                .prune(
                    &PruneRule::KeepLast(0),
                    "keep_last 0",
                    HOUR,
                    None,
                    &self.store,
                    false,
                )
                .unwrap()
        }
    }

    /// Records a committed write of a.txt from `before` to `after`, both stored; returns its id.
    fn write(f: &mut Fixture, before: &[u8], after: &[u8]) -> String {
        let (b, a) = (
            f.store.write(before).unwrap(),
            f.store.write(after).unwrap(),
        );
        let op = NewOperation {
            kind: "write".into(),
            items: vec![
                Item::from_json(&json!({
                    "path": "a.txt", "before_hash": b.to_string(), "after_hash": a.to_string(),
                }))
                .unwrap(),
            ],
            ..Default::default()
        };
        let id = f.journal.begin(&op).unwrap();
        f.journal
            .set_status(&id, &[Status::Pending], Status::Committed)
            .unwrap();
        id
    }

    /// Moves every operation's times back a day, as if recorded then.
    fn age_a_day(f: &Fixture) {
        f.journal
            .conn()
            .execute_batch(
                "UPDATE operations SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day'),
                                       updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day')",
            )
            .unwrap();
    }

    const HOUR: Duration = Duration::from_secs(3600);

    fn policy(keep_days: Option<u64>, keep_last: Option<u64>) -> Retention {
        Retention {
            keep_days,
            keep_last,
            max_store_bytes: None,
        }
    }

    #[test]
    fn the_policy_check_says_due_only_when_every_rule_lets_go_of_an_old_operation() {
        let mut f = fixture();
        for i in 0..9 {
            write(
                &mut f,
                format!("v{i}").as_bytes(),
                format!("v{}", i + 1).as_bytes(),
            );
        }
        let j = &f.journal;
        // Off: never due.
        assert!(!j.policy_due(&Retention::default(), HOUR).unwrap());
        // Fresh operations are within the grace period, whatever the rules say.
        assert!(!j.policy_due(&policy(None, Some(1)), HOUR).unwrap());
        age_a_day(&f);
        let j = &f.journal;
        // keep_last 8 lets go of one operation, within the slack of 8/8 = 1: not yet.
        assert!(!j.policy_due(&policy(None, Some(8)), HOUR).unwrap());
        assert!(j.policy_due(&policy(None, Some(7)), HOUR).unwrap());
        assert!(!j.policy_due(&policy(None, Some(9)), HOUR).unwrap());
        // A day old is within keep_days 1 plus its slack of three hours.
        assert!(!j.policy_due(&policy(Some(1), None), HOUR).unwrap());
        assert!(!j.policy_due(&policy(Some(1), Some(1)), HOUR).unwrap());
        assert!(!j.policy_due(&policy(None, Some(1)), 2 * 24 * HOUR).unwrap());
        // After a prune by the policy the check starts from its cut and is quiet again.
        let store = ObjectStore::at(f.store.dir());
        let pruned = f
            .journal
            .prune(
                &PruneRule::All(vec![PruneRule::KeepLast(3)]),
                "policy keep_last 3",
                HOUR,
                None,
                &store,
                false,
            )
            .unwrap();
        assert_eq!(pruned.operations, 6);
        assert!(!f.journal.policy_due(&policy(None, Some(3)), HOUR).unwrap());
        assert!(f.journal.policy_due(&policy(None, Some(1)), HOUR).unwrap());
    }

    #[test]
    fn combined_rules_cut_where_the_one_keeping_most_cuts() {
        let mut f = fixture();
        for i in 0..6 {
            write(
                &mut f,
                format!("v{i}").as_bytes(),
                format!("v{}", i + 1).as_bytes(),
            );
        }
        age_a_day(&f);
        let store = ObjectStore::at(f.store.dir());
        let both = PruneRule::All(vec![PruneRule::KeepLast(4), PruneRule::KeepLast(2)]);
        let pruned = f
            .journal
            .prune(&both, "both", HOUR, None, &store, true)
            .unwrap();
        assert_eq!(pruned.operations, 2);
        // A rule that keeps everything keeps everything, whatever the others let go.
        let none = PruneRule::All(vec![
            PruneRule::KeepLast(1),
            PruneRule::OlderThan(48 * HOUR),
        ]);
        let pruned = f
            .journal
            .prune(&none, "none", HOUR, None, &store, true)
            .unwrap();
        assert_eq!(pruned.operations, 0);
    }

    #[test]
    fn keep_last_prunes_the_older_operations_and_records_the_prune() {
        let mut f = fixture();
        let ops: Vec<String> = (0..4)
            .map(|i| {
                write(
                    &mut f,
                    format!("v{i}").as_bytes(),
                    format!("v{}", i + 1).as_bytes(),
                )
            })
            .collect();
        age_a_day(&f);
        let store = ObjectStore::at(f.store.dir());
        let pruned = f
            .journal
            .prune(
                &PruneRule::KeepLast(1),
                "keep_last 1",
                HOUR,
                Some("me"),
                &store,
                false,
            )
            .unwrap();
        assert_eq!(pruned.operations, 3);
        assert_eq!(pruned.protected, 0);
        // v0, v1 and v2 are named by the three pruned operations alone; v3 is still the
        // before of the kept one. The objects were just written: young, held for now.
        assert_eq!(pruned.released.held_objects, 3);
        assert_eq!(pruned.released.objects, 0);
        let id = pruned.prune_id.unwrap();
        for (i, op) in ops.iter().enumerate() {
            let op = f.journal.get(op).unwrap();
            assert_eq!(op.pruned_by.is_some(), i < 3, "{i}");
            assert_eq!(op.pruned_at.is_some(), i < 3, "{i}");
        }
        let (rule, count): (String, i64) = f
            .journal
            .conn()
            .query_row(
                "SELECT rule, operations FROM prunes WHERE id = ?1",
                [&id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((rule.as_str(), count), ("keep_last 1", 3));
        let again = f
            .journal
            .prune(
                &PruneRule::KeepLast(1),
                "keep_last 1",
                HOUR,
                None,
                &store,
                false,
            )
            .unwrap();
        assert_eq!(again.operations, 0, "pruned twice");
    }

    #[test]
    fn pending_and_recent_operations_are_never_pruned() {
        let mut f = fixture();
        write(&mut f, b"a", b"b");
        age_a_day(&f);
        write(&mut f, b"b", b"c"); // recent
        let pending = f
            .journal
            .begin(&NewOperation {
                kind: "write".into(),
                items: vec![
                    Item::from_json(&json!({"path": "p.txt", "after_hash": f.store.write(b"p").unwrap().to_string()}))
                        .unwrap(),
                ],
                ..Default::default()
            })
            .unwrap();
        f.journal
            .conn()
            .execute(
                "UPDATE operations SET created_at = '2000-01-01T00:00:00.000Z', updated_at = '2000-01-01T00:00:00.000Z' WHERE id = ?1",
                [&pending],
            )
            .unwrap();
        let pruned = f.keep_none();
        assert_eq!(pruned.operations, 1);
        assert_eq!(pruned.protected, 2);
        assert!(f.journal.get(&pending).unwrap().pruned_by.is_none());
    }

    #[test]
    fn a_dry_run_prunes_nothing_and_reports_the_same() {
        let mut f = fixture();
        write(&mut f, b"a", b"b");
        write(&mut f, b"b", b"c");
        age_a_day(&f);
        let store = ObjectStore::at(f.store.dir());
        let dry = f
            .journal
            .prune(
                &PruneRule::OlderThan(HOUR),
                "older_than 1h",
                Duration::ZERO,
                None,
                &store,
                true,
            )
            .unwrap();
        assert_eq!(dry.operations, 2);
        assert!(dry.prune_id.is_none());
        // Every object is older than a zero grace period: all three are collectable now.
        assert_eq!(dry.released.objects, 3);
        assert!(
            f.journal
                .all()
                .unwrap()
                .iter()
                .all(|op| op.pruned_by.is_none())
        );
        let real = f
            .journal
            .prune(
                &PruneRule::OlderThan(HOUR),
                "older_than 1h",
                Duration::ZERO,
                None,
                &store,
                false,
            )
            .unwrap();
        assert_eq!(
            (real.operations, real.released.clone()),
            (dry.operations, dry.released)
        );
    }

    #[test]
    fn older_than_keeps_what_was_recorded_since() {
        let mut f = fixture();
        let old = write(&mut f, b"a", b"b");
        age_a_day(&f);
        let new = write(&mut f, b"b", b"c");
        let store = ObjectStore::at(f.store.dir());
        let pruned = f
            .journal
            .prune(
                &PruneRule::OlderThan(HOUR),
                "older_than 1h",
                Duration::ZERO,
                None,
                &store,
                false,
            )
            .unwrap();
        assert_eq!(pruned.operations, 1);
        assert!(f.journal.get(&old).unwrap().pruned_by.is_some());
        assert!(f.journal.get(&new).unwrap().pruned_by.is_none());
        // b is still the before of the kept write: only a is released.
        assert_eq!(pruned.released.objects, 1);
    }

    #[test]
    fn max_store_size_keeps_the_newest_operations_that_fit() {
        let mut f = fixture();
        let blobs: Vec<Vec<u8>> = (0..5).map(|i| vec![b'0' + i; 1000]).collect();
        let ops: Vec<String> = (0..4)
            .map(|i| write(&mut f, &blobs[i], &blobs[i + 1]))
            .collect();
        age_a_day(&f);
        let size = f.store.stat(&ObjectId::of(&blobs[0])).unwrap().0;
        let store = ObjectStore::at(f.store.dir());
        // Room for three objects: the newest write (two objects) and the one before it (one
        // more); the third newest would need a fourth.
        let pruned = f
            .journal
            .prune(
                &PruneRule::MaxStoreSize(3 * size),
                "max_store_size",
                Duration::ZERO,
                None,
                &store,
                false,
            )
            .unwrap();
        assert_eq!(pruned.operations, 2);
        let marked: Vec<bool> = ops
            .iter()
            .map(|op| f.journal.get(op).unwrap().pruned_by.is_some())
            .collect();
        assert_eq!(marked, [true, true, false, false]);
    }

    #[test]
    fn the_live_set_names_every_object_of_an_unpruned_operation_and_no_other() {
        let mut f = fixture();
        write(&mut f, b"a", b"b");
        age_a_day(&f);
        write(&mut f, b"b", b"c");
        let store = ObjectStore::at(f.store.dir());
        f.journal
            .prune(
                &PruneRule::KeepLast(1),
                "keep_last 1",
                Duration::ZERO,
                None,
                &store,
                false,
            )
            .unwrap();
        let live = f.journal.live_objects().unwrap();
        assert!(!live.contains(&ObjectId::of(b"a")).unwrap());
        assert!(live.contains(&ObjectId::of(b"b")).unwrap());
        assert!(live.contains(&ObjectId::of(b"c")).unwrap());
    }

    #[test]
    fn an_operation_a_prune_kept_is_pruned_by_a_later_one_once_settled_and_releases_then() {
        let mut f = fixture();
        let first = write(&mut f, b"a", b"b");
        write(&mut f, b"b", b"c");
        age_a_day(&f);
        let recent = write(&mut f, b"c", b"d");
        let one = f.keep_none();
        assert_eq!((one.operations, one.protected), (2, 1));
        // a and b were named by the pruned operations alone; c is still the recent one's
        // before. All were just written: held by the grace period, not removable yet.
        assert_eq!((one.released.held_objects, one.released.objects), (2, 0));
        {
            let live = f.journal.live_objects().unwrap();
            let wanted: Vec<bool> = [b"a", b"b", b"c", b"d"]
                .iter()
                .map(|c| live.contains(&ObjectId::of(*c)).unwrap())
                .collect();
            assert_eq!(wanted, [false, false, true, true]);
        }
        assert!(f.journal.get(&recent).unwrap().pruned_by.is_none());
        // Nothing has settled since: the same prune again prunes nothing and leaves no row.
        assert_eq!(f.keep_none().operations, 0);
        age_a_day(&f);
        let two = f.keep_none();
        assert_eq!((two.operations, two.protected), (1, 0));
        assert_eq!(two.released.held_objects, 2, "c and d");
        let recent = f.journal.get(&recent).unwrap();
        assert_eq!(recent.pruned_by, two.prune_id);
        assert!(recent.pruned_at.is_some());
        assert_eq!(f.journal.get(&first).unwrap().pruned_by, one.prune_id);
        let live = f.journal.live_objects().unwrap();
        assert!(!live.contains(&ObjectId::of(b"d")).unwrap());
        drop(live);
        let total: i64 = f
            .journal
            .conn()
            .query_row("SELECT sum(operations) FROM prunes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(total, 3);
    }
}

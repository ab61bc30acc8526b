//! History retention: `prune_history` cuts the undoable history at a point, and `gc` removes
//! what nothing unpruned needs from the state directory. Both hold the workspace lock; every
//! disk effect is the plumbing's (`journal::Journal::prune`, `gc::collect`).

use crate::{Error, Result, Workspace};
use filekeeper_plumbing::journal::{Journal, PruneRule};
use filekeeper_plumbing::lock::WorkspaceLock;
use filekeeper_plumbing::workspace::State;
use schemars::JsonSchema;
use serde::Serialize;
use std::time::Duration;

/// How long an object, a temp file or a committed operation is protected after it was last
/// written: gc keeps objects and temp files younger than this whatever names them, and prune
/// never prunes an operation whose status changed within it. One day: a plumbing script names
/// its blobs in the journal within seconds, and an agent edits on a snapshot it read within
/// its session.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(24 * 3600);

/// Where [`Workspace::prune_history`] cuts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Operations recorded more than this long ago.
    OlderThan(Duration),
    /// All but the newest N operations.
    KeepLast(u64),
    /// The operations older than the newest ones whose objects fit in this many bytes.
    MaxStoreSize(u64),
}

/// Options of [`Workspace::prune_history`] and [`Workspace::gc`].
#[derive(Clone, Debug)]
pub struct RetentionOptions {
    /// The grace period ([`DEFAULT_GRACE`] by default).
    pub grace: Duration,
    /// Say what would be done, change nothing.
    pub dry_run: bool,
    /// Who prunes, recorded with the prune.
    pub actor: Option<String>,
}

impl Default for RetentionOptions {
    fn default() -> Self {
        RetentionOptions {
            grace: DEFAULT_GRACE,
            dry_run: false,
            actor: None,
        }
    }
}

/// The result of `history prune`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PruneResult {
    /// True when nothing was changed because a dry run was asked for.
    pub dry_run: bool,
    /// The prune's id (`prune_` and 16 hex digits), recorded in the journal's `prunes` table
    /// and in each pruned operation's `pruned_by`; null on a dry run or when nothing was
    /// pruned.
    pub prune_id: Option<String>,
    /// The rule as recorded, e.g. `older_than 30d`.
    pub rule: String,
    /// The sequence number of the newest operation at or before the cut; null when the rule
    /// cuts nothing.
    pub cut_seq: Option<i64>,
    /// Operations pruned (on a dry run, that would be).
    pub pruned_operations: u64,
    /// Operations at or before the cut kept unpruned: pending, or committed within the grace
    /// period.
    pub protected_operations: u64,
    /// Objects named only by the pruned operations that `gc` would remove now.
    pub collectable_objects: u64,
    /// Their bytes on disk (compressed): what `gc` would free now.
    pub collectable_bytes: u64,
    /// Objects named only by the pruned operations but younger than the grace period: `gc`
    /// removes them once they are older.
    pub held_objects: u64,
    /// Their bytes on disk.
    pub held_bytes: u64,
    /// The grace period applied, in seconds.
    pub grace_period_seconds: u64,
}

/// The result of `gc`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GcResult {
    /// True when nothing was removed because a dry run was asked for.
    pub dry_run: bool,
    /// Objects removed (on a dry run, that would be): named by no unpruned operation and
    /// older than the grace period.
    pub removed_objects: u64,
    /// Their bytes on disk (compressed).
    pub removed_bytes: u64,
    /// Temp files of interrupted writes removed (`tmp_obj_*`, `.fk-tmp-*`), older than the
    /// grace period and than ten minutes.
    pub removed_temporary_files: u64,
    /// Their bytes.
    pub removed_temporary_bytes: u64,
    /// Objects kept because an unpruned operation names them.
    pub kept_objects: u64,
    /// Objects named by no unpruned operation, kept because they are younger than the grace
    /// period.
    pub young_objects: u64,
    /// The bytes on disk of every object kept.
    pub kept_bytes: u64,
    /// The grace period applied, in seconds.
    pub grace_period_seconds: u64,
}

impl Workspace {
    /// Marks the operations before `cut` pruned: they stay in the journal but can no longer
    /// be undone, and the objects only they name become collectable by [`Workspace::gc`].
    /// Pending operations and those committed within the grace period are never pruned.
    pub fn prune_history(&self, cut: &Cut, options: &RetentionOptions) -> Result<PruneResult> {
        let (rule, text) = match cut {
            Cut::OlderThan(d) => (
                PruneRule::OlderThan(*d),
                format!("older_than {}", show_duration(*d)),
            ),
            Cut::KeepLast(n) => (PruneRule::KeepLast(*n), format!("keep_last {n}")),
            Cut::MaxStoreSize(n) => (PruneRule::MaxStoreSize(*n), format!("max_store_size {n}")),
        };
        let mut result = PruneResult {
            dry_run: options.dry_run,
            prune_id: None,
            rule: text,
            cut_seq: None,
            pruned_operations: 0,
            protected_operations: 0,
            collectable_objects: 0,
            collectable_bytes: 0,
            held_objects: 0,
            held_bytes: 0,
            grace_period_seconds: options.grace.as_secs(),
        };
        // No journal yet: nothing to prune, and nothing is created to say so.
        let Some(existing) = self.inner.state(false)? else {
            return Ok(result);
        };
        if existing.existing_journal()?.is_none() {
            return Ok(result);
        }
        let (state, _lock) = self.inner.lock()?;
        let Some(mut journal) = state.existing_journal()? else {
            return Ok(result);
        };
        let pruned = journal.prune(
            &rule,
            &result.rule,
            options.grace,
            options.actor.as_deref(),
            &state.store(),
            options.dry_run,
        )?;
        result.prune_id = pruned.prune_id;
        result.cut_seq = pruned.cut.map(|c| c.seq);
        result.pruned_operations = pruned.operations;
        result.protected_operations = pruned.protected;
        result.collectable_objects = pruned.released.objects;
        result.collectable_bytes = pruned.released.bytes;
        result.held_objects = pruned.released.held_objects;
        result.held_bytes = pruned.released.held_bytes;
        Ok(result)
    }

    /// Removes the objects no unpruned operation names and the temp files interrupted writes
    /// left, each only once older than the grace period.
    pub fn gc(&self, options: &RetentionOptions) -> Result<GcResult> {
        let mut result = GcResult {
            dry_run: options.dry_run,
            removed_objects: 0,
            removed_bytes: 0,
            removed_temporary_files: 0,
            removed_temporary_bytes: 0,
            kept_objects: 0,
            young_objects: 0,
            kept_bytes: 0,
            grace_period_seconds: options.grace.as_secs(),
        };
        if self.inner.state(false)?.is_none() {
            return Ok(result);
        }
        let (state, _lock) = self.inner.lock()?;
        let mut journal = state.existing_journal()?;
        let collected = filekeeper_plumbing::gc::collect(
            &state,
            journal.as_mut(),
            options.grace,
            options.dry_run,
        )?;
        result.removed_objects = collected.objects;
        result.removed_bytes = collected.bytes;
        result.removed_temporary_files = collected.temporary_files;
        result.removed_temporary_bytes = collected.temporary_bytes;
        result.kept_objects = collected.kept_objects;
        result.young_objects = collected.young_objects;
        result.kept_bytes = collected.kept_bytes;
        Ok(result)
    }
}

impl Workspace {
    /// Applies the `[history]` policy after a committed mutation, as `git gc --auto` does: a
    /// cheap check ([`Journal::policy_due`](filekeeper_plumbing::journal::Journal::policy_due)),
    /// and only when it says the policy is exceeded a prune by the policy's rules combined
    /// (with [`DEFAULT_GRACE`]) and a gc. It runs after the mutation released the lock, taking
    /// it again without waiting: when another process holds it, nothing runs and the next
    /// change checks again. With the policy off nothing is queried. A failure is returned as a
    /// warning for the mutation's result; it never fails the mutation.
    pub(crate) fn apply_policy(&self, actor: Option<&str>) -> Option<String> {
        if !self.inner.retention.enabled() {
            return None;
        }
        match self.apply_policy_now(actor) {
            Ok(()) => None,
            Err(PolicyFailure::BeforePrune(err)) => Some(format!(
                "the change is made, but applying the history retention policy after it failed ({}); history is kept as it was until a later change applies it",
                err.message
            )),
            Err(PolicyFailure::AfterPrune(err)) => Some(format!(
                "the change is made and the history retention policy pruned history, but removing the objects the pruned operations released failed ({}); they stay on disk until the policy's next gc removes them",
                err.message
            )),
        }
    }

    fn apply_policy_now(&self, actor: Option<&str>) -> std::result::Result<(), PolicyFailure> {
        self.prune_by_policy(actor)
            .map_err(PolicyFailure::BeforePrune)?
            .map_or(Ok(()), |(state, mut journal, _lock)| {
                filekeeper_plumbing::gc::collect(&state, Some(&mut journal), DEFAULT_GRACE, false)
                    .map(|_| ())
                    .map_err(PolicyFailure::AfterPrune)
            })
    }

    /// The policy's check and prune: the state, journal and lock to collect with when the
    /// prune pruned anything.
    fn prune_by_policy(
        &self,
        actor: Option<&str>,
    ) -> Result<Option<(State, Journal, WorkspaceLock)>> {
        let policy = &self.inner.retention;
        let Some((state, lock)) = self.inner.try_lock()? else {
            return Ok(None);
        };
        let Some(mut journal) = state.existing_journal()? else {
            return Ok(None);
        };
        if !journal.policy_due(policy, DEFAULT_GRACE)? {
            return Ok(None);
        }
        let mut rules = Vec::new();
        let mut text = Vec::new();
        if let Some(days) = policy.keep_days {
            rules.push(PruneRule::OlderThan(Duration::from_secs(
                days.saturating_mul(86_400),
            )));
            text.push(format!("keep_days {days}"));
        }
        if let Some(n) = policy.keep_last {
            rules.push(PruneRule::KeepLast(n));
            text.push(format!("keep_last {n}"));
        }
        if let Some(bytes) = policy.max_store_bytes {
            rules.push(PruneRule::MaxStoreSize(bytes));
            text.push(format!("max_store_bytes {bytes}"));
        }
        let pruned = journal.prune(
            &PruneRule::All(rules),
            &format!("policy {}", text.join(", ")),
            DEFAULT_GRACE,
            actor,
            &state.store(),
            false,
        )?;
        Ok((pruned.operations > 0).then_some((state, journal, lock)))
    }
}

/// Where applying the policy failed: before its prune committed (history is as it was), or
/// in the gc after it (history is pruned, the released objects are still on disk).
enum PolicyFailure {
    BeforePrune(Error),
    AfterPrune(Error),
}

/// Reads a duration: a whole number and a unit, `s`, `m`, `h`, `d` or `w` (`90s`, `12h`,
/// `30d`, `2w`); `0` alone is zero.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    let bad = || {
        Error::invalid(format!(
            "`{text}` is not a duration: give a whole number and a unit, s, m, h, d or w (for example 30d or 12h)"
        ))
        .with("value", text)
    };
    if t == "0" {
        return Ok(Duration::ZERO);
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    n.checked_mul(scale)
        .map(Duration::from_secs)
        .ok_or_else(bad)
}

/// Reads a size in bytes: a whole number, optionally followed by `K`, `M`, `G` or `T` (powers
/// of 1024, either case, with an optional `B` or `iB`): `500M`, `2G`, `1048576`.
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let bad = || {
        Error::invalid(format!(
            "`{text}` is not a size: give a whole number of bytes, optionally with K, M, G or T (for example 500M)"
        ))
        .with("value", text)
    };
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let unit = unit.to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    n.checked_mul(1u64 << shift).ok_or_else(bad)
}

/// A duration in the largest unit that divides it, as [`parse_duration`] reads it back.
fn show_duration(d: Duration) -> String {
    let s = d.as_secs();
    for (unit, scale) in [("w", 7 * 86_400), ("d", 86_400), ("h", 3600), ("m", 60)] {
        if s > 0 && s.is_multiple_of(scale) {
            return format!("{}{unit}", s / scale);
        }
    }
    format!("{s}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_documented() {
        for (text, secs) in [
            ("0", 0),
            ("90s", 90),
            ("15m", 900),
            ("12h", 43_200),
            ("30d", 2_592_000),
            ("2w", 1_209_600),
        ] {
            assert_eq!(
                parse_duration(text).unwrap(),
                Duration::from_secs(secs),
                "{text}"
            );
        }
        for bad in [
            "",
            "30",
            "d",
            "1.5d",
            "-1d",
            "30 days",
            "5y",
            "99999999999999999999w",
        ] {
            let err = parse_duration(bad).unwrap_err();
            assert_eq!(err.code, crate::Code::InvalidArgument, "{bad}");
        }
        assert_eq!(show_duration(Duration::from_secs(2_592_000)), "30d");
        assert_eq!(show_duration(Duration::from_secs(90)), "90s");
        assert_eq!(show_duration(Duration::ZERO), "0s");
    }

    #[test]
    fn sizes_read_as_documented() {
        for (text, bytes) in [
            ("0", 0),
            ("1234", 1234),
            ("10K", 10_240),
            ("500M", 500 << 20),
            ("2g", 2 << 30),
            ("1T", 1 << 40),
            ("3MiB", 3 << 20),
            ("4kb", 4096),
        ] {
            assert_eq!(parse_size(text).unwrap(), bytes, "{text}");
        }
        for bad in ["", "M", "1.5G", "-1", "5X", "99999999999T"] {
            assert_eq!(
                parse_size(bad).unwrap_err().code,
                crate::Code::InvalidArgument,
                "{bad}"
            );
        }
    }
}

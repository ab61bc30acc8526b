//! What a mutation's result shows of the change: one diff per journal item, made from the
//! bytes the plan already holds (so a real run reads nothing twice), bounded by
//! `max_diff_bytes` for the whole result and `max_diff_file_bytes` for each file.

use super::Planned;
use crate::ObjectId;
use filekeeper_plumbing::config::Limits;
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::resolve::Kind;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The line diffs of one result together give up refining after this long: each diff is
/// then coarser (a changed region as one block) but still correct. Lines found on one side
/// only are set aside first, so this is reached only by texts that share many repeated lines
/// in a shuffled order.
const DIFF_TIME: Duration = Duration::from_millis(100);

/// One path of a mutation, as its diff shows it: in the result's `diffs`, one for each of
/// `items`, in the same order.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MutationDiff {
    /// Workspace-relative path.
    pub path: String,
    /// What the change does to the path, as its item says (`created`, `modified`, `deleted`,
    /// `unchanged`, ...).
    pub change: String,
    /// `file` or `directory`.
    #[schemars(extend("enum" = ["file", "directory"]))]
    pub kind: &'static str,
    /// `text` (the diff is in `diff`), or why there is none: `binary` (not UTF-8 text, or
    /// holding a NUL byte), `directory`, `unchanged` (the same content before and after),
    /// `moved` (the content left this path for, or came here unchanged from, another path of
    /// the operation), `too_large` (larger than `max_diff_file_bytes` or
    /// `max_history_blob_bytes`), `omitted` (the result's `max_diff_bytes` was spent on the
    /// paths before it), or `never_stored` (an undo's current content is not in the history
    /// store).
    #[schemars(extend("enum" = ["text", "binary", "directory", "unchanged", "moved", "too_large", "omitted", "never_stored"]))]
    pub diff_kind: &'static str,
    /// The unified diff (`--- a/PATH`, `+++ b/PATH`, `/dev/null` for a side that does not
    /// exist; three lines of context) for `text`; null otherwise. A diff cut at the result's
    /// bound ends with a line saying so.
    pub diff: Option<String>,
    /// For `text`: the lines the change adds, counted over the whole diff even when the text
    /// is cut; null otherwise.
    pub lines_added: Option<u64>,
    /// For `text`: the lines the change removes, counted as `lines_added` is; null otherwise.
    pub lines_removed: Option<u64>,
}

/// Content a plan holds for a side of a file item, for its diff.
#[derive(Clone, Debug)]
pub(crate) enum Held {
    /// The bytes, already in memory for the change.
    Bytes(Arc<Vec<u8>>),
    /// Bytes in the history store (what an undo replaces), read only when the result is built,
    /// after the lock is released.
    Stored(ObjectId),
}

/// The two sides of a file item's diff. A side that exists but is not held (its bytes were
/// above `max_history_blob_bytes`) makes the item `too_large`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sides {
    pub before: Option<Held>,
    pub after: Option<Held>,
    /// Where `before` was read, when it is not the item's own path: a file a patch renames
    /// or copies with changes is diffed against its source.
    pub from: Option<String>,
}

impl Sides {
    /// The sides of a file whose content changes from `before` (none when it did not exist or
    /// was not held) to `after`.
    pub fn bytes(before: Option<Arc<Vec<u8>>>, after: Option<Arc<Vec<u8>>>) -> Sides {
        Sides {
            before: before.map(Held::Bytes),
            after: after.map(Held::Bytes),
            from: None,
        }
    }
}

/// Every item's diff, in order, and whether any was cut or omitted. `renamed` holds the
/// sources of the plan's renames; `stored` reads a blob of the history store (`None` when it
/// cannot).
pub(crate) fn describe(
    items: &[Planned],
    sides: &HashMap<String, Sides>,
    renamed: &HashSet<&str>,
    limits: &Limits,
    stored: &dyn Fn(&ObjectId) -> Option<Vec<u8>>,
) -> (Vec<MutationDiff>, bool) {
    let files = || {
        items
            .iter()
            .map(|p| &p.item)
            .filter(|i| i.kind == Kind::File)
    };
    // A file that goes and a file that comes with the same content are one file moved (a
    // directory's rename, an undone move); a file that goes while another that was already
    // there comes to hold its content is a deletion and a change, unless a rename made them.
    let came: HashSet<ObjectId> = files()
        .filter(|i| !i.before_exists && i.after_exists)
        .filter_map(|i| i.after_hash)
        .collect();
    let left: HashSet<ObjectId> = files()
        .filter(|i| i.before_exists && !i.after_exists)
        .filter_map(|i| i.before_hash)
        .collect();
    let sources: HashSet<&str> = sides.values().filter_map(|s| s.from.as_deref()).collect();
    let mut budget = Budget {
        left: usize::try_from(limits.max_diff_bytes).unwrap_or(usize::MAX),
        limit: limits.max_diff_bytes,
        truncated: false,
        deadline: Instant::now() + DIFF_TIME,
    };
    let file_cap = usize::try_from(limits.max_diff_file_bytes).unwrap_or(usize::MAX);
    let diffs = items
        .iter()
        .map(|p| {
            let item = &p.item;
            let moved = (item.before_exists
                && !item.after_exists
                && (item.before_hash.is_some_and(|h| came.contains(&h))
                    || sources.contains(item.path.as_str())
                    || renamed.contains(item.path.as_str())))
                || (!item.before_exists
                    && item.after_exists
                    && item.after_hash.is_some_and(|h| left.contains(&h)));
            let (diff_kind, text) = if item.kind == Kind::Directory {
                ("directory", None)
            } else if item.before_exists == item.after_exists && item.before_hash == item.after_hash
            {
                ("unchanged", None)
            } else if moved {
                ("moved", None)
            } else {
                content_diff(item, sides.get(&item.path), file_cap, &mut budget, stored)
            };
            let (diff, lines_added, lines_removed) = match text {
                Some((text, added, removed)) => (Some(text), Some(added), Some(removed)),
                None => (None, None, None),
            };
            MutationDiff {
                path: item.path.clone(),
                change: item.change.clone(),
                kind: item.kind.as_str(),
                diff_kind,
                diff,
                lines_added,
                lines_removed,
            }
        })
        .collect();
    (diffs, budget.truncated)
}

/// What is left of a result's diff bound.
struct Budget {
    /// Bytes of diff still allowed.
    left: usize,
    /// `max_diff_bytes`, for the note on a cut diff.
    limit: u64,
    truncated: bool,
    deadline: Instant,
}

/// A diff with the lines it adds and removes.
type Text = (String, u64, u64);

/// The diff of a file item whose content changed: its kind, and its text for `text`.
fn content_diff(
    item: &Item,
    sides: Option<&Sides>,
    file_cap: usize,
    budget: &mut Budget,
    stored: &dyn Fn(&ObjectId) -> Option<Vec<u8>>,
) -> (&'static str, Option<Text>) {
    let empty = Sides::default();
    let sides = sides.unwrap_or(&empty);
    // A side that exists must be held; a held side must be within the file cap. A stored side's
    // size is known only once read, so it is read only when the diff will be written.
    // A file diffed against its source has a before side though the path itself was new.
    let had_before = item.before_exists || sides.from.is_some();
    let (Some(before), Some(after)) = (
        held(had_before, sides.before.as_ref(), file_cap),
        held(item.after_exists, sides.after.as_ref(), file_cap),
    ) else {
        return ("too_large", None);
    };
    if budget.left == 0 {
        budget.truncated = true;
        return ("omitted", None);
    }
    let load = |side: Option<&Held>| -> Result<Option<Bytes>, &'static str> {
        match side {
            None => Ok(None),
            Some(Held::Bytes(b)) => Ok(Some(Bytes::Shared(Arc::clone(b)))),
            Some(Held::Stored(id)) => match stored(id) {
                Some(b) if b.len() > file_cap => Err("too_large"),
                Some(b) => Ok(Some(Bytes::Owned(b))),
                None => Err("never_stored"),
            },
        }
    };
    let (old, new) = match (load(before), load(after)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(kind), _) | (_, Err(kind)) => return (kind, None),
    };
    let (Ok(old_text), Ok(new_text)) = (text(old.as_ref()), text(new.as_ref())) else {
        return ("binary", None);
    };
    let from = match (old_text, &sides.from) {
        (None, _) => "/dev/null".to_owned(),
        (Some(_), Some(source)) => format!("a/{source}"),
        (Some(_), None) => format!("a/{}", item.path),
    };
    let to = match new_text {
        None => "/dev/null".to_owned(),
        Some(_) => format!("b/{}", item.path),
    };
    let mut written = crate::diff::changes(
        &from,
        &to,
        old_text.unwrap_or(""),
        new_text.unwrap_or(""),
        3,
        Some(budget.deadline),
        budget.left,
    );
    if written.cut && written.text.is_empty() {
        // Not one line of the diff fits what is left of the bound.
        budget.left = 0;
        budget.truncated = true;
        return ("omitted", None);
    }
    if written.text.is_empty() {
        // No line changes: an empty file created or deleted, or a file copied or renamed as
        // it is. The headers alone say which.
        written.text = crate::diff::headers(&from, &to);
        if written.text.len() > budget.left {
            budget.left = 0;
            budget.truncated = true;
            return ("omitted", None);
        }
    }
    if written.cut {
        budget.left = 0;
        budget.truncated = true;
        written.text.push_str(&format!(
            "... diff cut here: a result shows at most max_diff_bytes ({}) of diff\n",
            budget.limit
        ));
    } else {
        budget.left -= written.text.len();
    }
    (
        "text",
        Some((written.text, written.added as u64, written.removed as u64)),
    )
}

/// A side to diff: `Some(None)` when it does not exist, `Some(Some(_))` when it is held
/// (and, in memory, within `file_cap`), `None` when it cannot be diffed.
fn held(exists: bool, side: Option<&Held>, file_cap: usize) -> Option<Option<&Held>> {
    match (exists, side) {
        (false, _) => Some(None),
        (true, None) => None,
        (true, Some(Held::Bytes(b))) if b.len() > file_cap => None,
        (true, Some(side)) => Some(Some(side)),
    }
}

/// A side's text: `None` when it does not exist, an error when it is binary (not UTF-8, or
/// holding a NUL byte, as `history diff` judges it).
fn text(side: Option<&Bytes>) -> Result<Option<&str>, ()> {
    match side.map(Bytes::as_slice) {
        None => Ok(None),
        Some(b) if b.contains(&0) => Err(()),
        Some(b) => std::str::from_utf8(b).map(Some).map_err(|_| ()),
    }
}

/// A side's bytes: shared with the plan, or read from the store.
enum Bytes {
    Shared(Arc<Vec<u8>>),
    Owned(Vec<u8>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Shared(b) => b,
            Bytes::Owned(b) => b,
        }
    }
}

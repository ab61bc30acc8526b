//! Thin entry points for the fuzz targets in `t/fuzz/` (feature `fuzzing`, off by default).
//! Not an API: the parser, applier and matcher stay `pub(crate)`; these wrappers only move
//! bytes in and reports out, so a fuzz target exercises exactly the code an edit runs.

use super::apply;
use super::doc::Editable;
use super::patch::{FilePatch, HunkReport};
use super::replace::{self, Policy};
use crate::Result;

/// A parsed patch: a unified diff or a Codex patch.
pub struct Patch(Vec<FilePatch>);

/// Parses a whole patch as `apply_patch` does, in whichever format it is.
pub fn parse_patch(text: &str) -> Result<Patch> {
    apply::parse(text).map(Patch)
}

/// One file's outcome: whether every hunk applied, the per-hunk report, and the bytes the
/// file would then hold (the input, unchanged, when a hunk failed).
pub struct Applied {
    /// Whether every hunk applied.
    pub ok: bool,
    /// Each hunk's outcome, in the patch's order.
    pub hunks: Vec<HunkReport>,
    /// The file's bytes after the section (the input, when a hunk failed).
    pub bytes: Vec<u8>,
}

impl Patch {
    /// How many file sections the patch holds.
    pub fn files(&self) -> usize {
        self.0.len()
    }

    /// The old and new names of section `i` (`None` for `/dev/null`).
    pub fn names(&self, i: usize) -> (Option<&str>, Option<&str>) {
        (self.0[i].old_path.as_deref(), self.0[i].new_path.as_deref())
    }

    /// Whether the patch is a Codex patch.
    pub fn is_codex(&self) -> bool {
        self.0.first().is_some_and(|f| f.codex.is_some())
    }

    /// Applies section `i` to `content` as `apply_patch` does: an existing file is read the
    /// way `diff` sees it (a Codex patch sets its BOM apart); a created file starts empty.
    pub fn apply(&self, i: usize, content: &[u8]) -> Result<Applied> {
        let file = &self.0[i];
        let old: &[u8] = if file.old_path.is_some() {
            content
        } else {
            b""
        };
        let ((hunks, new), _, _) = apply::patched(file, "f", old)?;
        Ok(Applied {
            ok: new.is_some(),
            hunks,
            bytes: new.map_or_else(|| old.to_vec(), |n| n.to_vec()),
        })
    }
}

/// What `replace_text` made of a document.
pub struct Replaced {
    /// The document's bytes after the replacement.
    pub bytes: Vec<u8>,
    /// `exact` or `normalised`.
    pub stage: &'static str,
    /// How many occurrences of the old text were found.
    pub count: usize,
    /// The matcher's warnings: one for a normalised match (which lines matched, and how the
    /// new text was fitted to them), none for an exact one.
    pub warnings: Vec<String>,
}

/// The newline convention the document's new lines take, as the edits see it.
pub fn convention(content: &[u8]) -> Result<&'static str> {
    Ok(Editable::new("f", content)?.eol())
}

/// Runs the staged matcher of `replace_text` on `content`.
pub fn replace_text(
    content: &[u8],
    old: &str,
    new: &str,
    policy: Policy,
    expected_match_count: Option<u64>,
    expected_content: Option<&str>,
) -> Result<Replaced> {
    let mut ed = Editable::new("f", content)?;
    let r = replace::replace(
        &mut ed,
        "f",
        old,
        new,
        policy,
        expected_match_count,
        expected_content,
    )?;
    Ok(Replaced {
        bytes: ed.into_bytes(),
        stage: r.stage,
        count: r.count,
        warnings: r.warnings,
    })
}

/// The unified diff from `a` to `b` that `history diff` and dry-run previews print, headed
/// `--- a/f` / `+++ b/f`, with `context` lines of context.
pub fn unified_diff(a: &str, b: &str, context: usize) -> String {
    crate::diff::unified("a/f", "b/f", a, b, context, None, usize::MAX).text
}

/// The unified diff from `a` to `b` that a mutation's result carries in `diffs` (lines found
/// on one side only set aside before the line diff), headed as [`unified_diff`]'s.
pub fn mutation_diff(a: &str, b: &str, context: usize) -> String {
    crate::diff::changes("a/f", "b/f", a, b, context, None, usize::MAX).text
}

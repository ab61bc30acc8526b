//! Finding paths: `list` and `search`.

use crate::cursor::{Family, Position, Query, optional};
use crate::{Code, Error, Result, Workspace};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::walk::{self, EntryKind, WalkOptions};
use filekeeper_plumbing::{Argument, words};
use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::Serialize;

/// One listed path.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ListEntry {
    /// Workspace-relative path.
    pub path: String,
    /// `file`, `directory`, `symlink` or `special`.
    #[schemars(extend("enum" = ["file", "directory", "symlink", "special"]))]
    pub kind: &'static str,
    /// Size in bytes, for files.
    pub size_bytes: Option<u64>,
    /// For a symlink: what it leads to inside the workspace (`file`, `directory`, `special`,
    /// or `state` for the state directory), or `outside` or `broken`; null for anything else.
    /// Links are reported, never followed out of the root.
    #[schemars(extend("enum" = ["file", "directory", "special", "state", "outside", "broken", null]))]
    pub target_kind: Option<&'static str>,
}

/// The result of `list` or `search`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Listing {
    /// The directory listed or searched, as given.
    pub path: String,
    /// The matching entries in walk order (by name, a directory before its contents), at
    /// most the bound.
    pub entries: Vec<ListEntry>,
    /// More entries matched than were returned.
    pub truncated: bool,
    /// When truncated: the cursor that continues exactly after the last entry returned (pass
    /// it back with the same query for the next page); null on the last page, or when no
    /// key to sign it could be kept.
    pub next_cursor: Option<String>,
    /// How many matching entries this page's walk saw before it stopped (at most one past
    /// the bound: the walk stops as soon as it knows the answer is truncated).
    pub entries_seen: u64,
    /// Entries passed over by ignore rules (search only).
    pub ignored: u64,
    /// Directories not descended because of the depth bound.
    pub depth_limited: bool,
    /// Directories that could not be read.
    pub unreadable: Vec<String>,
    /// Entries left out because their names are not UTF-8, which no command can address:
    /// each path is shown with every byte that is not UTF-8 as `\xHH` and a backslash as
    /// `\\`, to be read, not passed back. Nothing below such a directory is listed.
    pub non_utf8_names: Vec<String>,
}

/// Options of [`Workspace::list`].
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    /// List everything below the directory (to `max_recursion_depth`), not only its own
    /// entries.
    pub recursive: bool,
    /// Only entries whose path below the listed directory matches this glob.
    pub glob: Option<String>,
    /// At most this many entries (default and ceiling: `max_directory_entries`).
    pub max_entries: Option<u64>,
    /// A previous page's `next_cursor`: continue after its last entry.
    pub cursor: Option<String>,
}

/// The longest glob accepted. globset compiles a glob to a regex and panics when that regex
/// is over its size limit; no real glob comes near this.
const MAX_GLOB_BYTES: usize = 4096;

/// Builds a glob matcher. `*` crosses directory separators, so `*.md` finds nested files;
/// a pattern without `/` also matches a bare file name.
pub(crate) fn glob(pattern: &str) -> Result<GlobMatcher> {
    if pattern.len() > MAX_GLOB_BYTES {
        return Err(crate::too_large(
            "glob",
            pattern.len() as u64,
            "the glob limit",
            MAX_GLOB_BYTES as u64,
        ));
    }
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| {
            Error::new(
                Code::InvalidPattern,
                format!("invalid glob {pattern:?}: {}", e.kind()),
            )
            .with("pattern", pattern)
        })
}

pub(crate) fn glob_matches(matcher: &GlobMatcher, pattern: &str, below: &str) -> bool {
    matcher.is_match(below)
        || (!pattern.contains('/') && matcher.is_match(below.rsplit('/').next().unwrap_or(below)))
}

/// Checks a caller's bound against the configured ceiling: above it is LIMIT_EXCEEDED.
pub(crate) fn bound(requested: Option<u64>, ceiling: u64, what: Argument) -> Result<u64> {
    match requested {
        Some(0) => Err(Error::worded(
            Code::InvalidArgument,
            words![what, " must be at least 1"],
        )),
        Some(n) if n > ceiling => Err(Error::worded(
            Code::LimitExceeded,
            words![
                what,
                format!(" {n} is above the limit of {ceiling} per request")
            ],
        )
        .with("limit", ceiling)
        .with("requested", n)),
        Some(n) => Ok(n),
        None => Ok(ceiling),
    }
}

impl Workspace {
    /// Lists a directory (the root by default), sorted by name, directories before their
    /// contents when recursive. `.filekeeper/` is never listed.
    pub fn list(&self, path: Option<&str>, options: &ListOptions) -> Result<Listing> {
        let limits = &self.inner.limits;
        let max = bound(
            options.max_entries,
            limits.max_directory_entries,
            Argument::MaxEntries,
        )
        .map_err(|e| e.path(path.unwrap_or(".")))?;
        let matcher = options
            .glob
            .as_deref()
            .map(glob)
            .transpose()
            .map_err(|e| e.path(path.unwrap_or(".")))?;
        let recursive = [u8::from(options.recursive)];
        let glob_part = optional(options.glob.as_deref());
        self.collect(
            path.unwrap_or("."),
            WalkOptions {
                recursive: options.recursive,
                max_depth: limits.max_recursion_depth as usize,
                respect_ignore: false,
            },
            max,
            (Family::List, &[&recursive, &glob_part]),
            options.cursor.as_deref(),
            |below| match (&matcher, options.glob.as_deref()) {
                (Some(m), Some(p)) => glob_matches(m, p, below),
                _ => true,
            },
        )
    }

    /// Finds paths under `path` whose path (or, for a pattern without `/`, whose name) matches
    /// `pattern`. Honours git's ignore rules and skips `.git/`.
    /// With `cursor` (a previous page's `next_cursor`), continues after that page.
    pub fn search(
        &self,
        path: &str,
        pattern: &str,
        max_results: Option<u64>,
        cursor: Option<&str>,
    ) -> Result<Listing> {
        let limits = &self.inner.limits;
        let max = bound(max_results, limits.max_search_results, Argument::MaxResults)
            .map_err(|e| e.path(path))?;
        let matcher = glob(pattern).map_err(|e| e.path(path))?;
        self.collect(
            path,
            WalkOptions {
                recursive: true,
                max_depth: limits.max_recursion_depth as usize,
                respect_ignore: true,
            },
            max,
            (Family::Search, &[pattern.as_bytes()]),
            cursor,
            |below| glob_matches(&matcher, pattern, below),
        )
    }

    fn collect(
        &self,
        path: &str,
        options: WalkOptions,
        max: u64,
        (family, arguments): (Family, &[&[u8]]),
        cursor: Option<&str>,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Listing> {
        let root = &self.inner.root;
        let start = root.resolve(path, Intent::Read)?;
        // The directory as resolved, so `docs` and `docs/` are one query.
        let query = Query::new(family, &[&[start.rel.as_bytes()], arguments].concat());
        let resume = self.open_cursor(&query, cursor)?;
        let prefix_len = if start.rel == "." {
            0
        } else {
            start.rel.len() + 1
        };
        let mut walk = walk::walk(root, &start, options)?;
        walk.report_non_utf8_names();
        walk.pass_over_reserved();
        walk.read_ahead();
        if let Some(Position::Path(after)) = &resume {
            walk.resume_after(after, false);
        }
        let mut entries = Vec::new();
        let mut seen = 0u64;
        let mut progress = filekeeper_plumbing::progress::Task::new("walking", None);
        for entry in walk.by_ref() {
            progress.step(1);
            let entry = entry?;
            if !keep(&entry.rel[prefix_len..]) {
                continue;
            }
            seen += 1;
            if seen > max {
                break;
            }
            let size_bytes = match entry.kind {
                EntryKind::File => Some(entry.stat()?.size),
                _ => None,
            };
            let target_kind =
                (entry.kind == EntryKind::Symlink).then(|| link_target(self, &entry.rel));
            entries.push(ListEntry {
                path: entry.rel,
                kind: entry.kind.as_str(),
                size_bytes,
                target_kind,
            });
        }
        let truncated = seen > max;
        let next_cursor = match entries.last() {
            Some(last) if truncated => {
                self.issue_cursor(&query, &Position::Path(last.path.clone()))?
            }
            _ => None,
        };
        Ok(Listing {
            path: path.to_owned(),
            entries,
            truncated,
            next_cursor,
            entries_seen: seen,
            ignored: walk.ignored,
            depth_limited: walk.depth_limited,
            unreadable: walk.unreadable,
            non_utf8_names: walk.non_utf8_names,
        })
    }
}

/// What a link inside the workspace leads to, judged by the same resolver as every path.
pub(crate) fn link_target(ws: &Workspace, rel: &str) -> &'static str {
    match ws.inner.root.resolve(rel, Intent::Read) {
        Ok(r) => match r.kind {
            Some(Kind::File) => "file",
            Some(Kind::Directory) => "directory",
            None => "broken",
        },
        Err(e) if e.code == Code::SymlinkEscapeRefused => "outside",
        Err(e) if e.code == Code::SpecialFileRefused => "special",
        Err(e) if e.code == Code::PathIsStatePath => "state",
        Err(_) => "broken",
    }
}

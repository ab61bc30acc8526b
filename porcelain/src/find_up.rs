//! `find-up`: the nearest entry of an exact name in a directory or one of its ancestors, up to
//! the workspace root and never past it.

use crate::{Code, Error, Result, Workspace};
use filekeeper_plumbing::resolve::{Intent, Kind, is_state_dir_name};
use filekeeper_plumbing::{Argument, words};
use schemars::JsonSchema;
use serde::Serialize;

/// Longest name a filesystem allows for one directory entry (`NAME_MAX` on Linux and macOS).
const NAME_MAX: usize = 255;

/// What `find-up` reports. "Not found" is an answer, not an error: `found` is false and the
/// match fields are null.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FoundUp {
    /// The path as given.
    pub path: String,
    /// The name looked for.
    pub name: String,
    /// Whether an entry of that name is in the directory the walk started from or in one of
    /// its ancestors up to the workspace root.
    pub found: bool,
    /// The workspace-relative path of the nearest such entry; null when none was found.
    pub found_path: Option<String>,
    /// What the entry is, as `exists` says it: a link inside the workspace is what it leads to;
    /// a link that leads nowhere is `symlink`. Null when none was found.
    #[schemars(extend("enum" = ["file", "directory", "symlink", "special", null]))]
    pub kind: Option<&'static str>,
    /// The directories looked in, nearest first, workspace-relative (`.` is the root): the
    /// directory the walk started from (the path itself, or a file's directory, with links
    /// inside the workspace followed) and its ancestors, up to the match or the root.
    pub searched: Vec<String>,
}

impl Workspace {
    /// Walks from `path` (a directory, or a file's directory) towards the workspace root and
    /// reports the nearest entry called exactly `name`. The walk follows the real directories
    /// above the start, never a link, and stops at the root; an entry of that name that is a
    /// link leading outside is SYMLINK_ESCAPE_REFUSED, as reading it would be. `name` must be
    /// one plain name: not empty, no `/`, not `.`, `..` or `.filekeeper`.
    pub fn find_up(&self, path: &str, name: &str) -> Result<FoundUp> {
        check_name(name)?;
        let start = self
            .inner
            .root
            .resolve(path, Intent::Read)
            .map_err(|e| self.explain(e, true))?;
        let dir = match start.kind {
            None => {
                return Err(self.explain(
                    Error::new(
                        Code::PathNotFound,
                        "no such file or directory in the workspace",
                    )
                    .path(path),
                    true,
                ));
            }
            Some(Kind::Directory) => start.rel.clone(),
            Some(Kind::File) => match start.rel.rsplit_once('/') {
                Some((parent, _)) => parent.to_owned(),
                None => ".".to_owned(),
            },
        };
        // The real path is text here; a name that is not UTF-8 was made text lossily and
        // would name another directory, so the walk would look in the wrong places.
        if dir.contains(char::REPLACEMENT_CHARACTER) {
            return Err(Error::invalid(
                "the path passes through a name that is not valid UTF-8; the walk up from it cannot name its directories",
            )
            .path(path));
        }
        let mut searched = Vec::new();
        let mut at = Some(dir.as_str());
        while let Some(current) = at {
            searched.push(current.to_owned());
            let candidate = if current == "." {
                name.to_owned()
            } else {
                format!("{current}/{name}")
            };
            let existence = self.exists(&candidate).map_err(|e| {
                // Only the candidate's last component can be a link (the directories above it
                // are real ones), so this refusal is about the entry found.
                if e.code == Code::SymlinkEscapeRefused {
                    Error::new(
                        Code::SymlinkEscapeRefused,
                        format!(
                            "the nearest {name} is a symbolic link that leads outside the workspace"
                        ),
                    )
                    .path(path)
                    .with("found_path", candidate.clone())
                    .recovery("what the link leads to is outside the workspace and cannot be read or inspected here; look for it from outside Filekeeper")
                } else {
                    e
                }
            })?;
            if existence.exists {
                return Ok(FoundUp {
                    path: path.to_owned(),
                    name: name.to_owned(),
                    found: true,
                    found_path: Some(candidate),
                    kind: existence.kind,
                    searched,
                });
            }
            at = match current {
                "." => None,
                _ => Some(current.rsplit_once('/').map_or(".", |(parent, _)| parent)),
            };
        }
        Ok(FoundUp {
            path: path.to_owned(),
            name: name.to_owned(),
            found: false,
            found_path: None,
            kind: None,
            searched,
        })
    }
}

/// Refuses a `name` that is not one plain directory entry name.
fn check_name(name: &str) -> Result<()> {
    let refuse = |why: &str| {
        Err(
            Error::worded(Code::InvalidArgument, words![Argument::Name, " ", why])
                .with("name", truncated(name)),
        )
    };
    if name.is_empty() {
        return refuse("is empty; name the entry to look for, e.g. pyproject.toml or .git");
    }
    if name.contains('/') {
        return refuse("holds a /; it must be one plain name, not a path");
    }
    if name == "." || name == ".." {
        return refuse("must be a plain name, not . or ..");
    }
    if name.contains('\0') {
        return refuse("holds a NUL byte");
    }
    if name.len() > NAME_MAX {
        return refuse(&format!(
            "is {} bytes long; a name is at most {NAME_MAX}",
            name.len()
        ));
    }
    if is_state_dir_name(name.as_bytes()) {
        return Err(Error::worded(
            Code::PathIsStatePath,
            words![
                Argument::Name,
                " .filekeeper is Filekeeper's own state, never looked for"
            ],
        )
        .with("name", name));
    }
    Ok(())
}

/// A refused name for the details: at most 64 characters of it.
fn truncated(name: &str) -> String {
    match name.char_indices().nth(64) {
        Some((at, _)) => format!("{}...", &name[..at]),
        None => name.to_owned(),
    }
}

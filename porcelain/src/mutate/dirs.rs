//! The directory commands, each a plan: create, move and delete a directory (with
//! everything in it, file by file, so the change can be undone).

use super::items::{Change, dir_item, removed_item};
use super::target::{Seen, not_a_directory};
use super::{MutationOptions, MutationResult, Plan, Planned, Sides, Step};
use crate::{Code, Error, Result, Workspace};
use filekeeper_plumbing::resolve::{Intent, Kind, Resolved};
use filekeeper_plumbing::walk::{self, EntryKind, WalkOptions};
use filekeeper_plumbing::{Argument, words};
use std::collections::HashSet;

/// How many entries a move that found unrecorded ones lists.
const MAX_UNRECORDED_LISTED: usize = 100;

impl Workspace {
    /// Creates a directory; with `parents`, also its missing ancestors (and an existing
    /// directory is then not an error).
    pub fn create_dir(
        &self,
        path: &str,
        parents: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let rel = ws.inner.root.relative(path)?;
            let missing = ws.dirs_to_create(&rel, parents, path, options)?;
            let items: Vec<Planned> = if missing.is_empty() {
                vec![Planned {
                    item: dir_item(&rel, Change::Unchanged, true, true),
                    after_size: None,
                }]
            } else {
                missing
                    .iter()
                    .map(|p| Planned {
                        item: dir_item(p, Change::Created, false, true),
                        after_size: None,
                    })
                    .collect()
            };
            Ok(Plan {
                summary: if missing.is_empty() {
                    format!("Directory {rel} already exists; nothing to create.")
                } else {
                    format!("Created directory {rel}.")
                },
                preview: missing
                    .iter()
                    .map(|p| Step::MakeDir { path: p.clone() }.preview_line())
                    .collect::<String>()
                    .into(),
                steps: missing
                    .iter()
                    .map(|p| Step::MakeDir { path: p.clone() })
                    .collect(),
                items,
                warnings: ws.ignored_warning_as(&rel, true),
                ..Plan::new("dir_create", path, &rel)
            })
        })
    }

    /// The directories to create so that the workspace-relative `rel` is a directory: real
    /// workspace-relative paths, outermost first (empty when it is one already). Without
    /// `parents`, an existing `rel` is ALREADY_EXISTS and a missing ancestor PATH_NOT_FOUND.
    /// Every name is judged by the write rules; `path` is the caller's name, for errors.
    pub(crate) fn dirs_to_create(
        &self,
        rel: &str,
        parents: bool,
        path: &str,
        options: &MutationOptions,
    ) -> Result<Vec<String>> {
        // Real workspace-relative paths of the directories to create, outermost first.
        let mut missing: Vec<String> = Vec::new();
        // The real path of the deepest ancestor found (or planned) so far.
        let mut real = String::new();
        let mut prefix = String::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            prefix = if prefix.is_empty() {
                (*part).to_owned()
            } else {
                format!("{prefix}/{part}")
            };
            let last = i + 1 == parts.len();
            // Existing ancestors are followed as any read would (a link to a directory
            // inside is fine); the target itself, and what will be created, are judged
            // as write targets.
            let found = if last {
                self.resolve_target(&prefix, options)
            } else if missing.is_empty() {
                self.inner.root.resolve(&prefix, Intent::Read)
            } else {
                Err(Error::new(Code::PathNotFound, "not created yet"))
            };
            let created = match found {
                Ok(r) if r.kind == Some(Kind::Directory) => {
                    if last && !parents {
                        return Err(Error::new(
                            Code::AlreadyExists,
                            "the directory already exists",
                        )
                        .path(path));
                    }
                    real = r.rel;
                    continue;
                }
                Ok(r) if r.kind == Some(Kind::File) => {
                    return Err(
                        Error::new(Code::NotADirectory, format!("{} is a file", r.rel)).path(path),
                    );
                }
                Ok(_) => self.resolve_target(&prefix, options).map(|r| r.rel),
                Err(e) if e.code == Code::PathNotFound && parents => {
                    // Its parent is planned, not there: the write rules are still judged
                    // on the name (they are checked before the walk needs the parent).
                    match self.resolve_target(&prefix, options) {
                        Err(e) if e.code == Code::PathNotFound => Ok(if real.is_empty() {
                            (*part).to_owned()
                        } else {
                            format!("{real}/{part}")
                        }),
                        other => other.map(|r| r.rel),
                    }
                }
                Err(e) => Err(e),
            };
            let created = created.map_err(|e| e.path(path))?;
            real.clone_from(&created);
            missing.push(created);
            if !last && !parents {
                return Err(Error::new(
                    Code::PathNotFound,
                    format!("the parent directory {prefix} does not exist"),
                )
                .path(path)
                .hint(words![
                    "pass ",
                    Argument::Parents,
                    " to create missing parents"
                ]));
            }
        }
        Ok(missing)
    }

    /// Moves (renames) a directory and everything in it, atomically, to a path that does not
    /// exist yet. Every file in it is recorded, so the move can be undone.
    pub fn move_dir(
        &self,
        source: &str,
        destination: &str,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let from = ws.resolve_target(source, options)?;
            if from.is_root() {
                return Err(Error::invalid("the workspace root cannot be moved").path(source));
            }
            if from.kind != Some(Kind::Directory) {
                return Err(not_a_directory(source, from.kind));
            }
            let to = ws.resolve_target(destination, options)?;
            if to.kind.is_some() {
                return Err(
                    Error::new(Code::AlreadyExists, "the destination already exists")
                        .path(destination),
                );
            }
            if to.rel.starts_with(&format!("{}/", from.rel)) {
                return Err(
                    Error::invalid("a directory cannot be moved into itself").path(destination)
                );
            }
            let tree = ws.tree_below(&from)?;
            // A rename keeps every mode, so each directory's is recorded on both ends.
            let mode = ws.dir_mode(&from.rel)?;
            let mut items = vec![Planned {
                item: removed_item(&from.rel, None, mode),
                after_size: None,
            }];
            let mut blobs = Vec::new();
            for (rel, seen, mode) in &tree {
                items.push(Planned {
                    item: removed_item(rel, seen.as_ref(), *mode),
                    after_size: None,
                });
            }
            let mut placed = dir_item(&to.rel, Change::Created, false, true);
            placed.after_mode = mode;
            items.push(Planned {
                item: placed,
                after_size: None,
            });
            for (rel, seen, mode) in &tree {
                let moved_to = format!("{}{}", to.rel, &rel[from.rel.len()..]);
                let mut item = removed_item(&moved_to, seen.as_ref(), *mode);
                item.change = Change::Created.into();
                std::mem::swap(&mut item.before_exists, &mut item.after_exists);
                std::mem::swap(&mut item.before_hash, &mut item.after_hash);
                std::mem::swap(&mut item.before_mode, &mut item.after_mode);
                let size = seen.as_ref().map(|s| s.size);
                items.push(Planned {
                    item,
                    after_size: size,
                });
                if let Some(bytes) = seen.as_ref().and_then(|s| s.bytes.clone()) {
                    blobs.push(bytes);
                }
            }
            Ok(Plan {
                summary: format!("Moved directory {} to {}.", from.rel, to.rel),
                source: Some(from.rel.clone()),
                preview: format!(
                    "rename {} -> {} ({} entries)\n",
                    crate::quote::path(&format!("{}/", from.rel)),
                    crate::quote::path(&format!("{}/", to.rel)),
                    tree.len()
                )
                .into(),
                steps: vec![Step::Rename {
                    from: from.rel.clone(),
                    to: to.rel.clone(),
                    from_hash: None,
                    replaces: None,
                }],
                items,
                blobs,
                warnings: [
                    ws.ignored_warning_as(&to.rel, true),
                    ws.ignored_warning_as(&from.rel, true),
                ]
                .concat(),
                renamed_tree: Some(to.rel.clone()),
                ..Plan::new("dir_move", destination, &to.rel)
            })
        })
    }

    /// Deletes a directory: an empty one, or with `recursive` everything in it, file by file
    /// (each file's bytes are stored first, so the deletion can be undone).
    pub fn delete_dir(
        &self,
        path: &str,
        recursive: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let target = ws.resolve_target(path, options)?;
            if target.is_root() {
                return Err(Error::invalid("the workspace root cannot be deleted").path(path));
            }
            if target.kind != Some(Kind::Directory) {
                return Err(not_a_directory(path, target.kind));
            }
            let tree = ws.tree_below(&target)?;
            if !recursive && !tree.is_empty() {
                return Err(Error::invalid("the directory is not empty")
                    .path(path)
                    .with("entries", tree.len())
                    .hint(words![
                        "delete it and everything in it with ",
                        Argument::Recursive
                    ]));
            }
            let mut items = Vec::new();
            let mut steps = Vec::new();
            let mut blobs = Vec::new();
            let mut sides = std::collections::HashMap::new();
            for (rel, seen, mode) in &tree {
                items.push(Planned {
                    item: removed_item(rel, seen.as_ref(), *mode),
                    after_size: None,
                });
                if let Some(seen) = seen {
                    steps.push(Step::Remove {
                        path: rel.clone(),
                        hash: seen.hash,
                    });
                    blobs.extend(seen.bytes.clone());
                    sides.insert(rel.clone(), Sides::bytes(seen.bytes.clone(), None));
                }
            }
            // Directories go after their contents: deepest first.
            let mut dirs: Vec<&String> = tree
                .iter()
                .filter(|(_, s, _)| s.is_none())
                .map(|(r, _, _)| r)
                .collect();
            dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
            steps.extend(
                dirs.into_iter()
                    .map(|d| Step::RemoveDir { path: d.clone() }),
            );
            steps.push(Step::RemoveDir {
                path: target.rel.clone(),
            });
            items.push(Planned {
                item: removed_item(&target.rel, None, ws.dir_mode(&target.rel)?),
                after_size: None,
            });
            let files = tree.iter().filter(|(_, s, _)| s.is_some()).count();
            Ok(Plan {
                summary: format!("Deleted directory {} ({files} files).", target.rel),
                preview: steps
                    .iter()
                    .map(Step::preview_line)
                    .collect::<String>()
                    .into(),
                items,
                steps,
                blobs,
                warnings: ws.ignored_warning_as(&target.rel, true),
                sides,
                ..Plan::new("dir_delete", path, &target.rel)
            })
        })
    }

    /// Entries of the directory a plan renamed into place ([`Plan::renamed_tree`]) that the
    /// plan does not name: added to the source tree by another process between the plan's
    /// listing and the rename, they moved with it unrecorded (at most
    /// [`MAX_UNRECORDED_LISTED`]). Empty for a plan that renames no tree.
    pub(super) fn unrecorded_entries(&self, plan: &Plan) -> Result<Vec<String>> {
        let Some(tree) = &plan.renamed_tree else {
            return Ok(Vec::new());
        };
        let named: HashSet<&str> = plan
            .items
            .iter()
            .filter(|p| p.item.after_exists)
            .map(|p| p.item.path.as_str())
            .collect();
        let dir = self.inner.root.resolve(tree, Intent::Read)?;
        let mut unrecorded = Vec::new();
        for entry in self.walk_whole_tree(&dir)? {
            let entry = entry?;
            if !named.contains(entry.rel.as_str()) {
                unrecorded.push(entry.rel);
                if unrecorded.len() == MAX_UNRECORDED_LISTED {
                    break;
                }
            }
        }
        Ok(unrecorded)
    }

    /// A walk of everything below `dir` as it is on disk: recursive to
    /// `max_recursion_depth`, ignore rules not applied (a move or delete carries ignored
    /// files too).
    fn walk_whole_tree(&self, dir: &Resolved) -> Result<walk::Walk> {
        walk::walk(
            &self.inner.root,
            dir,
            WalkOptions {
                recursive: true,
                max_depth: self.inner.limits.max_recursion_depth as usize,
                respect_ignore: false,
            },
        )
    }

    /// Every entry below a directory, in walk order: files with their state, directories as
    /// `None` with their mode. Links and special files cannot be recorded for undo, so they
    /// are refused, as is a nested workspace's state directory, which is never recorded.
    fn tree_below(&self, dir: &Resolved) -> Result<Vec<Below>> {
        let max_depth = self.inner.limits.max_recursion_depth as usize;
        let mut walk = self.walk_whole_tree(dir)?;
        let mut out = Vec::new();
        for entry in walk.by_ref() {
            let entry = entry?;
            match entry.kind {
                EntryKind::Directory => {
                    let mode = entry.stat()?.mode;
                    out.push((entry.rel, None, Some(mode)));
                }
                EntryKind::File => {
                    let resolved = self.inner.root.resolve(
                        &entry.rel,
                        Intent::Write {
                            allow_sensitive: true,
                        },
                    )?;
                    out.push((entry.rel.clone(), Some(self.see(&resolved)?), None));
                }
                EntryKind::Symlink | EntryKind::Special => {
                    let (code, what) = if entry.kind == EntryKind::Symlink {
                        (Code::SymlinkWriteRefused, "a symbolic link")
                    } else {
                        (Code::SpecialFileRefused, "a device, socket or FIFO")
                    };
                    return Err(Error::new(
                        code,
                        format!(
                            "{} is {what}; a tree holding one cannot be recorded for undo, so it is not changed",
                            entry.rel
                        ),
                    )
                    .path(&dir.given)
                    .with("entry", entry.rel.clone()));
                }
            }
        }
        if walk.depth_limited {
            // The walk stops at the limit, so how deep the tree goes is unknown: at least one
            // level more than allowed.
            return Err(Error::new(
                Code::LimitExceeded,
                format!("the tree is deeper than max_recursion_depth {max_depth}"),
            )
            .path(&dir.given)
            .with("limit", max_depth)
            .with("requested", max_depth + 1));
        }
        if !walk.unreadable.is_empty() {
            return Err(Error::new(
                Code::StorageError,
                format!(
                    "{} entries of the tree cannot be read, so it cannot be recorded for undo",
                    walk.unreadable.len()
                ),
            )
            .path(&dir.given)
            .with(
                "unreadable",
                walk.unreadable.iter().take(20).cloned().collect::<Vec<_>>(),
            ));
        }
        if let Some(state) = walk.nested_state_dirs.first() {
            // The walk passed over it, so a plan would leave it out: a deletion would stop at
            // the directory it keeps non-empty, and the undo of a move would.
            return Err(Error::new(
                Code::PathIsStatePath,
                format!(
                    "{state} has the name of a workspace's state directory (a nested \
                     workspace's .filekeeper/), which Filekeeper never records, so a tree \
                     holding it cannot be moved or deleted with an undo; move or delete it \
                     outside Filekeeper"
                ),
            )
            .path(&dir.given)
            .with("entry", state.clone()));
        }
        Ok(out)
    }
}

/// An entry below a directory: its path, a file's state (`None` for a directory), and a
/// directory's mode (`None` for a file, whose mode is in its state).
type Below = (String, Option<Seen>, Option<u32>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Filekeeper;
    use std::fs;

    #[test]
    fn a_moved_tree_lists_what_its_plan_does_not_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir_all(root.join("b/sub")).unwrap();
        fs::write(root.join("b/sub/planned.txt"), "p").unwrap();
        // Made in the source by another process after the listing: it moved along.
        fs::write(root.join("b/sub/added.txt"), "a").unwrap();
        let keeper = Filekeeper::new(Some(&dir.path().join("home"))).unwrap();
        let ws = keeper.workspace(None, Some(&root)).unwrap();
        let mut file = dir_item("b/sub/planned.txt", Change::Created, false, true);
        file.kind = Kind::File;
        let items = [
            dir_item("b", Change::Created, false, true),
            dir_item("b/sub", Change::Created, false, true),
            file,
        ]
        .map(|item| Planned {
            item,
            after_size: None,
        });
        let plan = Plan {
            items: items.into(),
            renamed_tree: Some("b".into()),
            ..Plan::new("dir_move", "b", "b")
        };
        assert_eq!(ws.unrecorded_entries(&plan).unwrap(), ["b/sub/added.txt"]);
        // Only a plan that renames a tree is walked.
        let other = Plan {
            items: Vec::new(),
            ..Plan::new("dir_delete", "b", "b")
        };
        assert!(ws.unrecorded_entries(&other).unwrap().is_empty());
    }

    #[test]
    fn a_result_reports_the_hashes_of_its_target_only() {
        let mut file = dir_item("t/f1.txt", Change::Created, false, true);
        file.kind = Kind::File;
        file.after_hash = Some(filekeeper_plumbing::ObjectId::of(b"file 1\n"));
        let items = [file].map(|item| Planned {
            item,
            after_size: None,
        });
        // An undo of a partial delete that left `t` itself in place: `t` is no item.
        let plan = Plan {
            items: items.into(),
            ..Plan::new("undo", "t", "t")
        };
        assert!(plan.target_item().is_none());
    }
}

//! Whole files and directories: create, write, copy, move, delete.

use super::{Context, Effect, Mutation, Tool};
use filekeeper::envelope::Success;
use filekeeper::{MutationResult, Result, schemas};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
pub struct FileCreate {
    path: String,
    // The file's whole content.
    content: String,
    // Replace an existing file instead of refusing with ALREADY_EXISTS.
    #[serde(default)]
    allow_existing: bool,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileCreate {
    const NAME: &str = "file_create";
    const DESCRIPTION: &str =
        "Create a file; an existing one is ALREADY_EXISTS unless allow_existing.";
    const EFFECT: Effect = Effect::Overwrite;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let content = self.content.as_bytes();
        let created =
            cx.workspace
                .create_file(&self.path, content, self.allow_existing, &options)?;
        Ok(cx.success(created))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileWrite {
    path: String,
    // The file's new whole content.
    content: String,
    expected_hash: Option<String>,
    // Drop the file's UTF-8 byte-order mark. Without it, a file that starts with one keeps it when content has none (bom_kept says so).
    #[serde(default)]
    remove_bom: bool,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileWrite {
    const NAME: &str = "file_write";
    const DESCRIPTION: &str =
        "Replace a file's whole content, or create it; keeps its mode and BOM.";
    const EFFECT: Effect = Effect::Destroy;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &["bom_kept"])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let written = cx.workspace.write_file(
            &self.path,
            self.content.as_bytes(),
            self.expected_hash.as_deref(),
            self.remove_bom,
            &options,
        )?;
        Ok(cx.success(written))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileCopy {
    // The file to copy.
    source: String,
    // The new path.
    destination: String,
    // Replace an existing destination only if it holds exactly this content.
    expected_destination_hash: Option<String>,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileCopy {
    const NAME: &str = "file_copy";
    const DESCRIPTION: &str =
        "Copy a file; an existing destination is replaced only with expected_destination_hash.";
    const EFFECT: Effect = Effect::Overwrite;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let copied = cx.workspace.copy_file(
            &self.source,
            &self.destination,
            self.expected_destination_hash.as_deref(),
            &options,
        )?;
        Ok(cx.success(copied))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileMove {
    // The file to move.
    source: String,
    // The new path.
    destination: String,
    // Replace an existing destination.
    #[serde(default)]
    overwrite: bool,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileMove {
    const NAME: &str = "file_move";
    const DESCRIPTION: &str =
        "Move a file; an existing destination is replaced only with overwrite.";
    const EFFECT: Effect = Effect::Destroy;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let moved =
            cx.workspace
                .move_file(&self.source, &self.destination, self.overwrite, &options)?;
        Ok(cx.success(moved))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileDelete {
    path: String,
    expected_hash: Option<String>,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileDelete {
    const NAME: &str = "file_delete";
    const DESCRIPTION: &str = "Delete a file; undo_operation restores it from history.";
    const EFFECT: Effect = Effect::Destroy;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let deleted =
            cx.workspace
                .delete_file(&self.path, self.expected_hash.as_deref(), &options)?;
        Ok(cx.success(deleted))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct DirectoryCreate {
    path: String,
    // Also create missing parent directories; an existing directory is then not an error.
    #[serde(default)]
    parents: bool,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for DirectoryCreate {
    const NAME: &str = "directory_create";
    const DESCRIPTION: &str = "Create a directory; with parents, every missing level.";
    const EFFECT: Effect = Effect::Write;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let created = cx
            .workspace
            .create_dir(&self.path, self.parents, &options)?;
        Ok(cx.success(created))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct DirectoryDelete {
    path: String,
    // Delete everything inside too (every file's bytes are stored first, so it can be undone,
    // unless one is over max_history_blob_bytes: then the whole deletion cannot be).
    #[serde(default)]
    recursive: bool,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for DirectoryDelete {
    const NAME: &str = "directory_delete";
    const DESCRIPTION: &str = "Delete an empty directory, or with recursive a whole tree.";
    const EFFECT: Effect = Effect::Destroy;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let deleted = cx
            .workspace
            .delete_dir(&self.path, self.recursive, &options)?;
        Ok(cx.success(deleted))
    }
}

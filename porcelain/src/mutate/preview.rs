//! What a dry run shows: kept as its ingredients while planning, rendered only when a dry run
//! asks, so a real run never pays for a diff.

use std::sync::Arc;

/// A preview diff longer than this is cut (it is a preview, never a file body dump).
const MAX_PREVIEW_BYTES: usize = 64 * 1024;

/// A dry run's preview, kept as its ingredients: a real run never pays for a diff.
#[derive(Clone, Debug, Default)]
pub(crate) struct Preview(pub Vec<PreviewPart>);

#[derive(Clone, Debug)]
pub(crate) enum PreviewPart {
    Text(String),
    Diff {
        rel: String,
        existed: bool,
        before: Option<Arc<Vec<u8>>>,
        after: Option<Arc<Vec<u8>>>,
    },
}

impl From<String> for Preview {
    fn from(text: String) -> Preview {
        Preview(vec![PreviewPart::Text(text)])
    }
}

impl Preview {
    pub fn render(&self) -> String {
        self.0
            .iter()
            .map(|part| match part {
                PreviewPart::Text(t) => t.clone(),
                PreviewPart::Diff {
                    rel,
                    existed,
                    before,
                    after,
                } => diff_preview(
                    rel,
                    before.as_deref().map(Vec::as_slice),
                    *existed,
                    after.as_deref().map(Vec::as_slice),
                ),
            })
            .collect()
    }
}

/// A unified diff of a content change, or a note when the content is not text or too large.
/// The diff gives up after two seconds (showing what it has), so a huge rewrite cannot stall
/// a dry run.
pub(crate) fn diff_preview(
    rel: &str,
    before: Option<&[u8]>,
    existed: bool,
    after: Option<&[u8]>,
) -> String {
    let (old, new) = match (
        before.map(std::str::from_utf8),
        after.map(std::str::from_utf8),
    ) {
        (Some(Err(_)), _) | (_, Some(Err(_))) => {
            return format!("binary content of {} changes\n", crate::quote::path(rel));
        }
        (None, _) if existed => {
            let rel = crate::quote::path(rel);
            return format!("{rel} is above the history cap; no preview\n");
        }
        (old, new) => (
            old.and_then(Result::ok).unwrap_or(""),
            new.and_then(Result::ok).unwrap_or(""),
        ),
    };
    let from = if existed {
        format!("a/{rel}")
    } else {
        "/dev/null".to_owned()
    };
    let to = if after.is_some() {
        format!("b/{rel}")
    } else {
        "/dev/null".to_owned()
    };
    let mut written = crate::diff::unified(
        &from,
        &to,
        old,
        new,
        3,
        Some(std::time::Duration::from_secs(2)),
        MAX_PREVIEW_BYTES,
    );
    if written.cut {
        written.text.push_str(&format!(
            "... diff cut at {} KiB\n",
            MAX_PREVIEW_BYTES / 1024
        ));
    }
    written.text
}

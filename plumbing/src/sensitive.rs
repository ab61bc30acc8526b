//! Credential-shaped paths: write targets refused unless the caller overrides deliberately.
//!
//! Matching is case-insensitive (`.ENV` on a case-insensitive volume is still `.env`) and looks
//! at every component, so `config/.ssh/x` and `.aws/credentials` are caught wherever they sit.

/// Directories whose whole contents are credential stores.
const SECRET_DIRS: &[&str] = &[".ssh", ".gnupg", ".aws"];

/// File names that are credentials wherever they appear.
const SECRET_NAMES: &[&str] = &[
    ".env",
    ".netrc",
    "authorized_keys",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
];

/// File extensions of private keys and key bundles.
const SECRET_EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx"];

/// Why `components` (a workspace-relative path split on `/`) is credential-shaped, if it is.
pub fn reason(components: &[&str]) -> Option<String> {
    let (last, dirs) = components.split_last()?;
    for dir in dirs {
        let lower = dir.to_ascii_lowercase();
        if SECRET_DIRS.contains(&lower.as_str()) {
            return Some(format!("it is inside a {lower}/ directory"));
        }
    }
    let name = last.to_ascii_lowercase();
    if SECRET_DIRS.contains(&name.as_str()) {
        return Some(format!("it is a {name}/ directory"));
    }
    if SECRET_NAMES.contains(&name.as_str()) || name.starts_with(".env.") {
        return Some(format!("{name} is a credential file name"));
    }
    if let Some((stem, ext)) = name.rsplit_once('.')
        && !stem.is_empty()
        && SECRET_EXTENSIONS.contains(&ext)
    {
        return Some(format!("*.{ext} files usually hold private keys"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::reason;

    fn check(path: &str) -> bool {
        reason(&path.split('/').collect::<Vec<_>>()).is_some()
    }

    #[test]
    fn credential_shaped_paths_are_caught() {
        for path in [
            ".env",
            ".env.local",
            "app/.env.production",
            "certs/server.pem",
            "tls.key",
            "id_rsa",
            "home/id_ed25519",
            "bundle.p12",
            "bundle.PFX",
            "authorized_keys",
            ".netrc",
            ".ssh/config",
            "x/.gnupg/pubring.kbx",
            ".aws/credentials",
            ".AWS/credentials",
            ".ssh",
            ".ENV",
        ] {
            assert!(check(path), "{path} should be sensitive");
        }
    }

    #[test]
    fn ordinary_paths_are_not() {
        for path in [
            "README.md",
            "env",
            ".envrc",
            "environment.txt",
            "src/key.rs",
            "keys/public.txt",
            "id_rsa.pub",
            "monkey",
            ".key",
            "notes/ssh.md",
        ] {
            assert!(!check(path), "{path} should not be sensitive");
        }
    }
}

//! The one git setting Filekeeper reads, `core.excludesFile`: from git's configuration files
//! in git's order (system, global, the repository's own), the last setting winning, with
//! git's value syntax (quotes, escapes, comments, continued lines) and `[include]` files.
//! `[includeIf]` is not evaluated: a setting only there is not seen (`reading.md`).

use std::path::{Path, PathBuf};

/// How deep `[include]` files may nest, as in git: a file that includes itself stops here.
const MAX_INCLUDE_DEPTH: usize = 10;

/// The global excludes file git would read for a repository whose git directory is
/// `git_dir` (none outside a repository): `core.excludesFile`, else
/// `$XDG_CONFIG_HOME/git/ignore`. A relative `core.excludesFile` is taken from the
/// repository's top (`top`), where git reads it, and is none outside a repository: from the
/// process's working directory, the same search would honour other rules from another
/// directory.
pub(crate) fn excludes_file(top: Option<&Path>, git_dir: Option<&Path>) -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let home = env("HOME");
    let xdg = env("XDG_CONFIG_HOME")
        .filter(|v| !v.as_os_str().is_empty())
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut files = Vec::new();
    if std::env::var_os("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(env("GIT_CONFIG_SYSTEM").or_else(|| Some(PathBuf::from("/etc/gitconfig"))));
    }
    match env("GIT_CONFIG_GLOBAL") {
        // Set, it replaces both user files (`/dev/null` reads none).
        Some(global) => files.push(Some(global)),
        None => {
            files.push(xdg.as_ref().map(|x| x.join("git/config")));
            files.push(home.as_ref().map(|h| h.join(".gitconfig")));
        }
    }
    files.push(git_dir.map(|dir| dir.join("config")));
    let mut value = None;
    for file in files.into_iter().flatten() {
        read_file(&file, home.as_deref(), 0, &mut value);
    }
    let Some(value) = value else {
        return xdg.map(|x| x.join("git/ignore"));
    };
    match (value.strip_prefix("~/"), &home) {
        (Some(rest), Some(home)) => Some(home.join(rest)),
        _ if Path::new(&value).is_absolute() => Some(PathBuf::from(value)),
        _ => top.map(|top| top.join(value)),
    }
}

/// Reads `core.excludesFile` settings from the config file at `path` into `value`, each
/// later one replacing the one before, following its `[include]` files where they stand.
fn read_file(path: &Path, home: Option<&Path>, depth: usize, value: &mut Option<String>) {
    let Some(bytes) = crate::ignore::read_regular(rustix::fs::CWD, path, true)
        .ok()
        .flatten()
    else {
        return;
    };
    for (section, key, setting) in entries(&String::from_utf8_lossy(&bytes)) {
        match (section.as_str(), key.as_str()) {
            ("core", "excludesfile") => *value = Some(setting),
            ("include", "path") if depth < MAX_INCLUDE_DEPTH => {
                let included = match (setting.strip_prefix("~/"), home) {
                    (Some(rest), Some(home)) => home.join(rest),
                    // Relative to the directory of the file that includes it.
                    _ => path.parent().unwrap_or(Path::new("/")).join(&setting),
                };
                read_file(&included, home, depth + 1, value);
            }
            _ => {}
        }
    }
}

/// The settings of a git config file, in order: (section, key, value), the section and key
/// lower-cased. A subsection makes the section `name "sub"` (which no caller asks for);
/// a key without `=` (git's boolean true) has an empty value.
fn entries(text: &str) -> Vec<(String, String, String)> {
    let text = text.replace("\r\n", "\n");
    let mut chars = text.chars().peekable();
    let mut section = String::new();
    let mut found = Vec::new();
    let skip_line = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        chars.find(|&c| c == '\n');
    };
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '#' || c == ';' {
            skip_line(&mut chars);
        } else if c == '[' {
            chars.next();
            let header: String = chars.by_ref().take_while(|&c| c != ']').collect();
            section = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => format!("{} {}", name.to_ascii_lowercase(), sub.trim()),
                None => header.to_ascii_lowercase(),
            };
        } else {
            let mut key = String::new();
            while let Some(&c) = chars
                .peek()
                .filter(|c| c.is_ascii_alphanumeric() || **c == '-')
            {
                key.push(c.to_ascii_lowercase());
                chars.next();
            }
            while chars.next_if(|&c| c == ' ' || c == '\t').is_some() {}
            if key.is_empty() {
                skip_line(&mut chars); // not a setting git would read either
            } else if chars.next_if_eq(&'=').is_some() {
                found.push((section.clone(), key, value(&mut chars)));
            } else {
                skip_line(&mut chars);
                found.push((section.clone(), key, String::new()));
            }
        }
    }
    found
}

/// A value after its `=`, to the end of its line, as git reads it: whitespace outside quotes
/// dropped at either end and each inner one a space, `"` quoting (whitespace, `#` and `;`
/// kept inside), the escapes `\"`, `\\`, `\n`, `\t`, `\b`, a backslash before the line
/// end continuing the value on the next line, and a comment after it.
fn value(chars: &mut std::iter::Peekable<std::str::Chars>) -> String {
    let mut value = String::new();
    let (mut quoted, mut spaces) = (false, 0);
    while let Some(c) = chars.next() {
        let c = match c {
            '\n' => break,
            '"' => {
                quoted = !quoted;
                continue;
            }
            '#' | ';' if !quoted => {
                chars.find(|&c| c == '\n');
                break;
            }
            c if c.is_whitespace() && !quoted => {
                spaces += usize::from(!value.is_empty());
                continue;
            }
            '\\' => match chars.next() {
                Some('\n') => continue,
                Some('n') => '\n',
                Some('t') => '\t',
                Some('b') => '\u{8}',
                Some(c) => c,
                None => break,
            },
            c => c,
        };
        value.extend(std::iter::repeat_n(' ', spaces));
        spaces = 0;
        value.push(c);
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excludes(config: &str) -> Option<String> {
        entries(config)
            .into_iter()
            .filter(|(s, k, _)| s == "core" && k == "excludesfile")
            .map(|(_, _, v)| v)
            .next_back()
    }

    #[test]
    fn the_core_section_alone_sets_it_and_the_last_setting_wins() {
        let config = "[user]\n\texcludesfile = nope\n[core]\n\tExcludesFile = ~/.gi_global\n";
        assert_eq!(excludes(config).as_deref(), Some("~/.gi_global"));
        assert_eq!(excludes("[user]\nname = x\n"), None);
        assert_eq!(excludes("[core \"sub\"]\nexcludesfile = x\n"), None);
        assert_eq!(
            excludes("[Core]\nexcludesfile = a\n[core]\nexcludesFile = b\n").as_deref(),
            Some("b")
        );
        assert_eq!(
            excludes("[core] excludesfile = same-line").as_deref(),
            Some("same-line")
        );
    }

    #[test]
    fn values_follow_git_syntax() {
        let one = |v: &str| excludes(&format!("[core]\nexcludesfile ={v}\n")).unwrap();
        assert_eq!(one(" ~/.gitignore # my ignores"), "~/.gitignore");
        assert_eq!(one(" ~/.gitignore;old"), "~/.gitignore");
        assert_eq!(one(" \"/home/x/my ignores#1\"  "), "/home/x/my ignores#1");
        assert_eq!(one(" /a  b\t c "), "/a  b  c");
        assert_eq!(one(" /a\\\"b\\\\c"), "/a\"b\\c");
        assert_eq!(one(" /long\\\n/path"), "/long/path");
        assert_eq!(one(" \"\""), "");
        assert_eq!(
            excludes("[core]\r\nexcludesfile = /crlf\r\n").as_deref(),
            Some("/crlf")
        );
    }

    #[test]
    fn include_files_are_read_where_they_stand() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::write(
            dir.path().join("inc"),
            "[core]\nexcludesfile = /from-include\n",
        )
        .unwrap();
        std::fs::write(
            &main,
            "[core]\nexcludesfile = /before\n[include]\npath = inc\n",
        )
        .unwrap();
        let mut value = None;
        read_file(&main, None, 0, &mut value);
        assert_eq!(value.as_deref(), Some("/from-include"));
        std::fs::write(
            &main,
            "[include]\npath = inc\n[core]\nexcludesfile = /after\n",
        )
        .unwrap();
        read_file(&main, None, 0, &mut value);
        assert_eq!(value.as_deref(), Some("/after"));
        // A file that includes itself stops at git's depth.
        std::fs::write(&main, "[include]\npath = main\n").unwrap();
        read_file(&main, None, 0, &mut value);
    }
}

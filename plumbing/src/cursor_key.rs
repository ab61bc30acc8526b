//! The secret that signs cursors: 32 random bytes in `cursor.key`, kept in the workspace's
//! state directory, or in the home while the workspace has no state.
//!
//! A cursor is a token a caller hands back to continue a bounded listing; the porcelain
//! signs it with this key so a cursor it did not issue, for this workspace, is refused. A read
//! never creates a workspace's state (`.filekeeper/` appearing because someone looked would
//! surprise the project's owner, and in a git repository it would also edit `.gitignore`), so
//! a workspace without state signs with a key in the home, Filekeeper's own directory. The
//! token names which of the two keys signed it.

use crate::durable::{random_hex16, sync_dir};
use crate::error::{Code, Error, Result};
use crate::fault::counted;
use crate::workspace::Workspace;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The key file's name, in the state directory or the home.
pub const KEY_FILE: &str = "cursor.key";
/// The key's length in bytes.
pub const KEY_BYTES: usize = 32;

/// Where a cursor key lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPlace {
    /// The workspace's state directory (`.filekeeper/` or its place under the home).
    State,
    /// The home, for a workspace that has no state yet.
    Home,
}

impl Workspace {
    /// The key to sign a new cursor with, and where it is: the state directory's when the
    /// workspace has state, otherwise the home's. Created when missing; never creates the
    /// workspace's state. `None` when there is none and none can be written there (a
    /// read-only home or state directory): a page is still exact, only without a way on. A
    /// key that is there and damaged is STORAGE_ERROR, never passed over: a page would lose
    /// its way on for good, without a word.
    pub fn cursor_signing_key(&self) -> Result<Option<(KeyPlace, [u8; KEY_BYTES])>> {
        let place = match self.state(false)? {
            Some(_) => KeyPlace::State,
            None => KeyPlace::Home,
        };
        Ok(self.cursor_key_in(place, true)?.map(|key| (place, key)))
    }

    /// The key kept at `place`, never created: `None` when there is none.
    pub fn cursor_key(&self, place: KeyPlace) -> Result<Option<[u8; KEY_BYTES]>> {
        self.cursor_key_in(place, false)
    }

    fn cursor_key_in(&self, place: KeyPlace, create: bool) -> Result<Option<[u8; KEY_BYTES]>> {
        let dir = match place {
            KeyPlace::State => match self.state(false)? {
                Some(state) => state.dir,
                None => return Ok(None),
            },
            KeyPlace::Home => self.home.dir().to_path_buf(),
        };
        if let Some(key) = read_key(&dir)? {
            return Ok(Some(key));
        }
        if !create {
            return Ok(None);
        }
        if (place == KeyPlace::Home && make_home(&dir).is_err()) || make_key(&dir).is_err() {
            return Ok(None);
        }
        read_key(&dir)?
            .ok_or_else(|| Error::internal("the cursor key vanished while it was made"))
            .map(Some)
    }
}

fn read_key(dir: &Path) -> Result<Option<[u8; KEY_BYTES]>> {
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(dir.join(KEY_FILE));
    let mut file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::storage("reading the cursor key", &e)),
    };
    let mut bytes = Vec::with_capacity(KEY_BYTES + 1);
    (&mut file)
        .take(KEY_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::storage("reading the cursor key", &e))?;
    let key: [u8; KEY_BYTES] = bytes.try_into().map_err(|_| {
        Error::new(
            Code::StorageError,
            format!("{KEY_FILE} is not {KEY_BYTES} bytes long; it is damaged"),
        )
        .recovery(&format!(
            "delete {KEY_FILE} from the state directory (or the home) and a new key is made; cursors issued before are then refused"
        ))
    })?;
    Ok(Some(key))
}

/// The home may not exist yet when a workspace is selected with a root alone.
fn make_home(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    counted("create directory", || fs::create_dir_all(dir))?;
    match dir.parent() {
        Some(parent) => sync_dir(parent),
        None => Ok(()),
    }
}

/// Writes a fresh key durably under a temporary name, then links it into place, which fails
/// rather than replaces when another process made the key first: then that key is the one,
/// and every process signs and checks with the same bytes.
fn make_key(dir: &Path) -> io::Result<()> {
    let mut key = [0u8; KEY_BYTES];
    let mut filled = 0;
    while filled < KEY_BYTES {
        match rustix::rand::getrandom(&mut key[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => continue,
            // Unlike a temporary name, a key must not be guessable: no fallback.
            Err(e) => return Err(io::Error::from_raw_os_error(e.raw_os_error())),
        }
    }
    let tmp = dir.join(format!(".fk-tmp-{}", random_hex16()));
    let target = dir.join(KEY_FILE);
    let result = (|| {
        let mut file = counted("create temporary file", || {
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)
        })?;
        counted("write file data", || file.write_all(&key))?;
        counted("sync file", || file.sync_all())?;
        match counted("link into place", || fs::hard_link(&tmp, &target)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        counted("remove temporary file", || fs::remove_file(&tmp))?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Home;

    fn workspace(home: &Path, root: &Path) -> Workspace {
        Workspace::select(Home::locate(Some(home)).unwrap(), None, Some(root)).unwrap()
    }

    #[test]
    fn a_workspace_without_state_signs_with_a_key_in_the_home_and_creates_no_state() {
        let dir = tempfile::tempdir().unwrap();
        let (home, root) = (dir.path().join("home"), dir.path().join("root"));
        fs::create_dir(&root).unwrap();
        let ws = workspace(&home, &root);
        assert_eq!(ws.cursor_key(KeyPlace::Home).unwrap(), None);
        let (place, key) = ws.cursor_signing_key().unwrap().unwrap();
        assert_eq!(place, KeyPlace::Home);
        assert!(!root.join(".filekeeper").exists());
        assert_eq!(fs::read(home.join(KEY_FILE)).unwrap(), key);
        assert_eq!(
            ws.cursor_signing_key().unwrap().unwrap().1,
            key,
            "the key is kept"
        );
        let mode = fs::metadata(home.join(KEY_FILE)).unwrap().permissions();
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o077, 0);
        assert_eq!(
            fs::read_dir(&home).unwrap().count(),
            1,
            "no temporary file is left"
        );
    }

    #[test]
    fn a_workspace_with_state_signs_with_its_own_key() {
        let dir = tempfile::tempdir().unwrap();
        let (home, root) = (dir.path().join("home"), dir.path().join("root"));
        fs::create_dir(&root).unwrap();
        let ws = workspace(&home, &root);
        ws.state(true).unwrap();
        let (place, key) = ws.cursor_signing_key().unwrap().unwrap();
        assert_eq!(place, KeyPlace::State);
        assert_eq!(
            fs::read(root.join(".filekeeper").join(KEY_FILE)).unwrap(),
            key
        );
        assert_eq!(ws.cursor_key(KeyPlace::State).unwrap(), Some(key));
        assert!(!home.exists(), "the home is left alone");
    }

    #[test]
    fn a_damaged_key_is_a_storage_error() {
        let dir = tempfile::tempdir().unwrap();
        let (home, root) = (dir.path().join("home"), dir.path().join("root"));
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&home).unwrap();
        fs::write(home.join(KEY_FILE), b"short").unwrap();
        let err = workspace(&home, &root).cursor_signing_key().unwrap_err();
        assert_eq!(err.code, Code::StorageError);
    }

    #[test]
    fn a_key_made_meanwhile_by_another_process_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(KEY_FILE), [7u8; KEY_BYTES]).unwrap();
        make_key(dir.path()).unwrap();
        assert_eq!(read_key(dir.path()).unwrap(), Some([7u8; KEY_BYTES]));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

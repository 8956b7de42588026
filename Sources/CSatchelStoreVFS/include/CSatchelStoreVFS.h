#ifndef CSATCHELSTOREVFS_H
#define CSATCHELSTOREVFS_H

/// The page-encrypting SQLite VFS behind SatchelStore (docs/store-format.md).
///
/// The VFS wraps the platform's default VFS and becomes the default itself. A file whose database is not
/// registered (see `retain`) is opened by the wrapped VFS unchanged; temporary files (no name, or a temp, transient
/// or statement-journal kind) live in memory. For a registered database, every page of the main file, every page
/// image of its rollback journal and every WAL frame's page is sealed by `seal` before it is written and opened by
/// `open` after it is read; headers pass through. Memory-mapped I/O is off for those files (no xFetch), so no read
/// bypasses `open`. Writes that would put part of a page on disk in the clear are refused.

/// What a file holds, given to the cipher so each kind gets its own key and its pages their own location.
enum {
    SATCHEL_VFS_DATABASE = 0,
    SATCHEL_VFS_JOURNAL = 1,
    SATCHEL_VFS_WAL = 2,
};

typedef struct satchel_vfs_cipher {
    /// The cipher context of the database at `databasePath` (as the wrapped VFS names it), retained for the file
    /// being opened, or NULL when the database is not registered (the file is then ordinary SQLite).
    void *_Nullable (*_Nonnull retain)(const char *_Nonnull databasePath);
    /// Retains a context once more (a journal or WAL sharing its open database file's cipher).
    void (*_Nonnull retainAgain)(void *_Nonnull context);
    /// Releases a context `retain` or `retainAgain` returned.
    void (*_Nonnull release)(void *_Nonnull context);
    /// Seals `page` (`size` bytes, its trailer at the end) in place. `location`: the page number for the database,
    /// the byte offset of the page image for a journal or WAL. Returns 0, or nonzero when the page can't be sealed.
    int (*_Nonnull seal)(void *_Nonnull context, int kind, unsigned char *_Nonnull page, int size, long long location);
    /// Opens a sealed `page` in place. Returns 0, or nonzero when it fails authentication.
    int (*_Nonnull open)(void *_Nonnull context, int kind, unsigned char *_Nonnull page, int size, long long location);
} satchel_vfs_cipher;

/// Registers the VFS (once per process) as the default, over the default VFS present now. `pageSize` is the only page
/// size registered databases may use; `reserve` the bytes at each page's end the cipher owns. Returns SQLITE_OK or
/// an SQLite error code.
int satchel_vfs_install(const satchel_vfs_cipher *_Nonnull cipher, int pageSize, int reserve);

/// The full path the wrapped VFS gives `path` (what `retain` receives for it). Returns SQLITE_OK or an error code.
int satchel_vfs_full_path(const char *_Nonnull path, char *_Nonnull out, int size);

/// Asks for `reserve` bytes at the end of each page of the connection's main database (`SQLITE_FCNTL_RESERVE_BYTES`):
/// applies to a database not yet written and to what VACUUM and VACUUM INTO write. `connection` is an `sqlite3 *`.
int satchel_vfs_request_reserve(void *_Nonnull connection, int reserve);

#endif
